/* links.c — whole links per dim (LinkGBps, MaxLinks): the one rule that a
 * network file, the command line and Python all apply to them. */
#include <math.h>
#include <string.h>

#include "weft.h"
#include "model/dims_list.h"

int weft_network_links_check(const WeftNetwork *net, const char *file, const char *rate_field,
                             const char *max_field, WeftError *err) {
  for (int d = 0; d < net->ndims; d++) {
    double r = net->link_gbps[d];
    int m = net->max_links[d], line = net->links_line[d];
    if (!(r >= 0.0) || !(r <= WEFT_MAX_LINK_GBPS))  /* NaN fails too */
      return weft_error_set(err, WEFT_EINPUT, file, line, 0, rate_field,
                            "%s entry %d must be a link rate in GB/s above 0 (0: the dim is "
                            "continuous) and at most %g, got %g", rate_field, d + 1,
                            WEFT_MAX_LINK_GBPS, r);
    if (m < 0 || m > WEFT_MAX_LINKS)
      return weft_error_set(err, WEFT_EINPUT, file, net->max_links_line[d], 0, max_field,
                            "%s entry %d must be a whole number of links from 1 to %d (0: no "
                            "limit), got %d", max_field, d + 1, WEFT_MAX_LINKS, m);
    if (m > 0 && r == 0.0 && !net->part[d][0])  /* a limit on links of no rate (a part
                                                    bound later brings its rate) */
      return weft_error_set(err, WEFT_EINPUT, file, line, 0, rate_field,
                            "%s entry %d is 0 (continuous) but %s entry %d limits it to %d "
                            "links: a link needs a rate above 0", rate_field, d + 1, max_field,
                            d + 1, m);
  }
  return WEFT_OK;
}

int weft_network_set_links(WeftNetwork *net, const double *link_gbps, int nrates,
                           const double *max_links, int nmax, const char *rate_field,
                           const char *max_field, WeftError *err) {
  WeftNetwork t = *net;  /* net is left as it was on failure */
  const char *fields[2] = {rate_field, max_field};
  const int counts[2] = {nrates, nmax};
  const double *lists[2] = {link_gbps, max_links};
  for (int k = 0; k < 2; k++) {
    int rc = lists[k] ? weft_dims_list_check(net, counts[k], "", NULL, fields[k], err) : 0;
    if (rc) return rc;
  }
  for (int d = 0; d < net->ndims; d++) {
    /* a dim built of a part: its rate is the part's, its limit at most the part's */
    if (net->part[d][0] && link_gbps && link_gbps[d] != net->link_gbps[d])
      return weft_error_set(err, WEFT_EINPUT, "", 0, 0, rate_field,
                            "%s entry %d: dim %d is built of part '%s', whose rate (%g GB/s) "
                            "is its link rate", rate_field, d + 1, d + 1, net->part[d],
                            net->link_gbps[d]);
    if (net->part[d][0] && max_links && net->max_links[d] > 0 &&
        !(max_links[d] >= 1.0 && max_links[d] <= net->max_links[d]))
      return weft_error_set(err, WEFT_EINPUT, "", 0, 0, max_field,
                            "%s entry %d: dim %d is built of part '%s': at most %d links, got "
                            "%g", max_field, d + 1, d + 1, net->part[d], net->max_links[d],
                            max_links[d]);
    if (link_gbps) t.link_gbps[d] = link_gbps[d];
    if (max_links) {
      double m = max_links[d];
      if (!(m >= 0.0) || !(m <= WEFT_MAX_LINKS) || m != floor(m))
        return weft_error_set(err, WEFT_EINPUT, "", 0, 0, max_field,
                              "%s entry %d must be a whole number of links from 1 to %d (0: no "
                              "limit), got %g", max_field, d + 1, WEFT_MAX_LINKS, m);
      t.max_links[d] = (int)m;
    }
    if (link_gbps) t.links_line[d] = 0;
    if (max_links) t.max_links_line[d] = 0;
  }
  int rc = weft_network_links_check(&t, "", rate_field, max_field, err);
  if (!rc) *net = t;
  return rc;
}
