/* host: what machine a run ran on (summary.json "host"): kernel, preempt model, CPUs, isolation,
 * virtualisation, clocksource. Read-only. */
#ifndef JL_HOST_H
#define JL_HOST_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>

/* The preempt model as "rt", "full", "voluntary", "none" or "dynamic(full)" etc. */
const char *jl_host_preempt(char *buf, size_t len);
/* True on a virtual machine; WHAT names it (hypervisor type, DMI product) or says how it was seen. */
bool jl_host_virtualized(char *what, size_t len);
/* A new JSON object with the contract's host keys. */
json_object *jl_host_describe(void);

#endif
