/* collective.c — per-dimension traffic of each collective (LIBRA's model)
 * and the communicator that maps phases onto dims. */
#include <stdio.h>
#include <string.h>

#include "io/names.h"
#include "weft.h"

const char *weft_collective_name(WeftCollective c) {
  switch (c) {
    case WEFT_COLL_NONE: return "NONE";
    case WEFT_COLL_ALLREDUCE: return "ALLREDUCE";
    case WEFT_COLL_REDUCESCATTER: return "REDUCESCATTER";
    case WEFT_COLL_ALLGATHER: return "ALLGATHER";
    case WEFT_COLL_ALLTOALL: return "ALLTOALL";
    case WEFT_COLL_SENDRECV: return "SENDRECV";
  }
  return "?";
}

const char *weft_phase_name(WeftPhase p) {
  switch (p) {
    case WEFT_PHASE_FWD: return "forward";
    case WEFT_PHASE_IG: return "input_grad";
    case WEFT_PHASE_WG: return "weight_grad";
  }
  return "?";
}

/* Hierarchical collectives walk the spanned dims innermost first (all-gather
 * outermost first), each dim seeing the data left by the previous one. */
void weft_collective_traffic(WeftCollective c, double size_bytes, const int *group,
                             int ndims, double *traffic_bytes) {
  double s = size_bytes;
  for (int d = 0; d < ndims; d++) traffic_bytes[d] = 0.0;
  switch (c) {
    case WEFT_COLL_NONE: break;
    case WEFT_COLL_ALLREDUCE:
      for (int d = 0; d < ndims; d++) {
        if (group[d] < 1) continue;
        traffic_bytes[d] = 2.0 * s / group[d] * (group[d] - 1);
        s /= group[d];
      }
      break;
    case WEFT_COLL_REDUCESCATTER:
      for (int d = 0; d < ndims; d++) {
        if (group[d] < 1) continue;
        traffic_bytes[d] = s / group[d] * (group[d] - 1);
        s /= group[d];
      }
      break;
    case WEFT_COLL_ALLGATHER:
      for (int d = ndims - 1; d >= 0; d--) {
        if (group[d] < 1) continue;
        traffic_bytes[d] = s * (group[d] - 1);
        s *= group[d];
      }
      break;
    case WEFT_COLL_ALLTOALL:
      for (int d = 0; d < ndims; d++) {
        if (group[d] < 1) continue;
        traffic_bytes[d] = s / group[d] * (group[d] - 1);
      }
      break;
    case WEFT_COLL_SENDRECV: /* ring neighbour: the hop may cross any spanned dim */
      for (int d = 0; d < ndims; d++)
        if (group[d] > 1) traffic_bytes[d] = s;
      break;
  }
}

const int *weft_communicator_find(const WeftCommunicator *comm, const char *name) {
  for (int k = 0; k < comm->nextra; k++)
    if (!strcmp(comm->extra_name[k], name)) return comm->extra[k];
  return NULL;
}

/* "Groups.<name>": the field an error in a named group reports (formatted
 * only on error: the check runs for every co-design point). */
static const char *group_field(char *buf, size_t size, const char *name) {
  snprintf(buf, size, "Groups.%.16s", name);
  return buf;
}

int weft_communicator_check(const WeftCommunicator *comm, const WeftNetwork *net,
                            WeftError *err) {
  static const char *keys[WEFT_NPHASES] = {"Forward", "InputGrad", "WeightGrad"};
  if (comm->ndims != net->ndims)
    return weft_error_set(err, WEFT_EINPUT, comm->file, comm->line[0], 0, keys[0],
                          "communicator has %d dims, the network has %d", comm->ndims,
                          net->ndims);
  for (int p = 0; p < WEFT_NPHASES; p++)
    for (int d = 0; d < comm->ndims; d++) {
      int g = comm->group[p][d];
      if (g == -1) continue;
      if (g < 1 || g > net->npus[d])
        return weft_error_set(err, WEFT_EINPUT, comm->file, comm->line[p], 0, keys[p],
                              "%s group on dim %d is %d: must be -1 or 1..%d (the dim's NPUs)",
                              keys[p], d + 1, g, net->npus[d]);
    }
  if (comm->nextra < 0 || comm->nextra > WEFT_MAX_GROUPS)
    return weft_error_set(err, WEFT_EINVAL, comm->file, 0, 0, "Groups",
                          "communicator has %d named groups: must be 0..%d", comm->nextra,
                          WEFT_MAX_GROUPS);
  for (int k = 0; k < comm->nextra; k++) {  /* the named groups (Groups:), same rules */
    char field[WEFT_NAME_LEN];
    const char *name = comm->extra_name[k];
    if (!weft_group_name_ok(name, strnlen(name, sizeof comm->extra_name[k])))
      return weft_error_set(err, WEFT_EINPUT, comm->file, comm->extra_line[k], 0, "Groups",
                            "named group %d is called '%.16s': must be 1 to %d letters, digits "
                            "or '_'",
                            k + 1, name, WEFT_GROUP_NAME_MAX);
    for (int j = 0; j < k; j++)
      if (!strcmp(comm->extra_name[j], name))
        return weft_error_set(err, WEFT_EINPUT, comm->file, comm->extra_line[k], 0,
                              group_field(field, sizeof field, name),
                              "group '%s' is named twice", name);
    for (int d = 0; d < comm->ndims; d++) {
      int g = comm->extra[k][d];
      if (g == -1) continue;
      if (g < 1 || g > net->npus[d])
        return weft_error_set(err, WEFT_EINPUT, comm->file, comm->extra_line[k], 0,
                              group_field(field, sizeof field, name),
                              "group %s on dim %d is %d: must be -1 or 1..%d (the dim's NPUs)",
                              name, d + 1, g, net->npus[d]);
    }
  }
  return WEFT_OK;
}

/* Steps of one reduce-scatter (or all-gather, all-to-all) stage over n
 * members with the dim's default algorithm (the simulator's, stage.c): a
 * rail fabric runs NCCL's rings per rail, a torus dim rings both ways. */
static int stage_steps(WeftTopology t, int fabric, int n) {
  if (n < 2) return 0;
  if (t == WEFT_FULLY_CONNECTED) return 1;                /* direct */
  if (t == WEFT_SWITCH && fabric == WEFT_SHAPE_TREE && (n & (n - 1)) == 0) { /* halving-doubling */
    int k = 0;
    while ((1 << k) < n) k++;
    return k;
  }
  return n - 1;                                           /* ring */
}

int weft_collective_steps(WeftCollective c, const int *group, const WeftNetwork *net, int *steps) {
  int total = 0;
  for (int d = 0; d < net->ndims; d++) {
    int n = group[d], k = 0;
    if (n > 1) switch (c) {
        case WEFT_COLL_ALLREDUCE: k = 2 * stage_steps(net->topology[d], net->fabric[d], n); break;
        case WEFT_COLL_REDUCESCATTER:
        case WEFT_COLL_ALLGATHER:
        case WEFT_COLL_ALLTOALL: k = stage_steps(net->topology[d], net->fabric[d], n); break;
        case WEFT_COLL_SENDRECV: k = 1; break;
        default: k = 0;
      }
    if (steps) steps[d] = k;
    total += k;
  }
  return total;
}

double weft_collective_latency_ns(WeftCollective c, const int *group, const WeftNetwork *net) {
  int steps[WEFT_MAX_DIMS];
  double t = 0.0;
  weft_collective_steps(c, group, net, steps);
  for (int d = 0; d < net->ndims; d++) t += net->latency_ns[d] * steps[d];
  return t;
}
