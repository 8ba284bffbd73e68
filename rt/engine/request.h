/* request: a request to a [queue], from a [source] (a client) or from a callback's `work =
 * call QUEUE` (a server calling another), with what happened to it. Written by the executor driver
 * (executor.c) into preallocated slots, read after the run (results.c: requests.csv; summary.c). */
#ifndef JL_REQUEST_H
#define JL_REQUEST_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

struct jl_engine;

enum jl_req_status {
	JL_REQ_PENDING,      /* not replied to when the run ended */
	JL_REQ_OK,           /* replied to while its caller still waited */
	JL_REQ_DEADLINE,     /* its caller gave up first (the client's deadline, a call's propagated one) */
	JL_REQ_REFUSED,      /* refused at once: its queue's limit (RESOURCE_EXHAUSTED), or the queue was full */
};

struct jl_request {
	int64_t created, deadline;   /* CLOCK_MONOTONIC ns; deadline 0: none */
	int64_t start, end;          /* its service by the queue's callback (0: not started / not ended) */
	_Atomic int64_t gave_up;     /* when its caller stopped waiting for it (0: it did not) */
	atomic_uint done;            /* a futex: 1 once it is replied to or refused */
	int32_t parent;              /* the request whose handler sent it (-1: a source's) */
	int16_t topic;               /* its queue (an index into the scenario's topics) */
	int16_t source;              /* the [source] that made it (-1: a call) */
	int32_t server;              /* the series of the callback that served it (-1: none yet) */
	_Atomic uint8_t status;      /* enum jl_req_status */
};

const char *jl_req_status_name(enum jl_req_status s);

/* After the run: R's status (its atomics are written by the threads, read here once they ended) */
static inline enum jl_req_status jl_request_status(const struct jl_request *r)
{
	return (enum jl_req_status)atomic_load(&((struct jl_request *)r)->status);
}

/* ... and when its caller gave up on it (0: it did not) */
static inline int64_t jl_request_gave_up(const struct jl_request *r)
{
	return atomic_load(&((struct jl_request *)r)->gave_up);
}

/* The request R's chain started from (a source's): R itself, or its callers' first. REQS: all N. */
const struct jl_request *jl_request_root(const struct jl_request *reqs, size_t n, const struct jl_request *r);

/* After the run: the requests of ENG (NULL when it has none), how many, and how many found no slot. */
const struct jl_request *jl_executor_requests(const struct jl_engine *eng, size_t *n, size_t *lost);

/* When the requester of R stopped waiting, following its callers up (a client's deadline counts for
 * every call its request caused): the earliest give-up on R's chain, or 0. REQS: all requests. */
int64_t jl_request_given_up(const struct jl_request *reqs, size_t n, const struct jl_request *r);
/* Work R's server did after its requester had given up (jl_request_given_up), or 0. */
int64_t jl_request_wasted(const struct jl_request *reqs, size_t n, const struct jl_request *r);

#endif
