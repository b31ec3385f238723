/* names.h — internal: the spelling of a named group (workload "@name",
 * communicator "Groups:"), shared by the readers, the writers and the check. */
#ifndef WEFT_IO_NAMES_H
#define WEFT_IO_NAMES_H

#include <stddef.h>

/* Longest group name: WeftWorkload.group_name and WeftCommunicator.extra_name
 * hold 16 bytes. */
#define WEFT_GROUP_NAME_MAX 15

/* 1..15 characters of [A-Za-z0-9_]: safe in a workload token and a YAML key. */
static inline int weft_group_name_ok(const char *s, size_t len) {
  if (len < 1 || len > WEFT_GROUP_NAME_MAX) return 0;
  for (size_t i = 0; i < len; i++) {
    char c = s[i];
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'))
      return 0;
  }
  return 1;
}

#endif
