/* chakra_groups.c — where a communicator group's members lie among the
 * network's ranks (rank = c_0 + n_0 (c_1 + n_1 (c_2 + ...)), dim 0
 * innermost), for the comm groups of a Chakra trace set; and the varint of
 * the trace framing. */
#include "io/chakra.h"

long long chakra_npus(const WeftNetwork *net) {
  long long n = 1;
  for (int d = 0; d < net->ndims; d++) n *= net->npus[d];
  return n;
}

int chakra_whole_dims(const WeftNetwork *net, const int *group) {
  for (int d = 0; d < net->ndims; d++)
    if (group[d] > 1 && group[d] != net->npus[d]) return 0;
  return 1;
}

int chakra_members(const WeftNetwork *net, const int *group, long long rank, long long *out) {
  int D = net->ndims, lo = -1, hi = -1;
  int base[WEFT_MAX_DIMS], size[WEFT_MAX_DIMS], step[WEFT_MAX_DIMS];
  long long stride[WEFT_MAX_DIMS], r = rank, s = 1;
  for (int d = 0; d < D; d++)
    if (group[d] > 1) {
      if (lo < 0) lo = d;
      hi = d;
    }
  for (int d = 0; d < D; d++) {
    int n = net->npus[d], c = (int)(r % n), g = group[d] > 1 ? group[d] : 1;
    r /= n;
    stride[d] = s;
    s *= n;
    size[d] = g;
    if (g == 1) {
      base[d] = c;
      step[d] = 1;
    } else if (d == lo && hi > lo && g < n && n % g == 0) { /* outer part: npus/g apart */
      step[d] = n / g;
      base[d] = c % step[d];
    } else { /* a block of consecutive coordinates */
      step[d] = 1;
      base[d] = c - c % g;
    }
  }
  int count = 0, idx[WEFT_MAX_DIMS] = {0};
  for (;;) {
    long long v = 0;
    for (int d = 0; d < D; d++) v += (long long)(base[d] + idx[d] * step[d]) * stride[d];
    out[count++] = v;
    int d = 0;
    while (d < D && ++idx[d] == size[d]) idx[d++] = 0;
    if (d == D) break;
  }
  return count;
}

size_t chakra_varint_put(uint8_t *buf, uint64_t v) {
  size_t n = 0;
  while (v >= 0x80) {
    buf[n++] = (uint8_t)(v | 0x80);
    v >>= 7;
  }
  buf[n++] = (uint8_t)v;
  return n;
}
