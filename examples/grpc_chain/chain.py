#!/usr/bin/python3
"""The published gRPC chain, for real: three Python gRPC servers A -> B -> C and a client (issue 30).

    chain.py server --name a --port 50151 --workers 16 --next 50152 [--mode none|propagate]
    chain.py server --name b --port 50152 --workers 4  --next 50153 [--mode none|propagate]
    chain.py server --name c --port 50153 --workers 16 --delay 5
    chain.py client --a 50151 --b 50152 [--orders 8] [--pings 10] [--interval 0.2] [--deadline 1]

The published setup: A serves Order (it calls B's Price), B serves Price (it calls C's Quote) and Ping (it
calls nothing), C answers Quote after --delay seconds, sleeping 0.1 s at a time. A and C have 16 worker
threads, B has 4. The client sends --orders Orders to A at once and --pings Pings to B every --interval s
from the same moment (with --deadline: a client deadline on each Order). --mode none: no deadline on the
calls downstream; propagate: the incoming call's remaining time less 50 ms, and a callback that cancels
the downstream call when the incoming one ends.

Generic handlers, bytes in and out: no generated code. Every hop carries the caller's send time,
time.monotonic_ns() (CLOCK_MONOTONIC: the probe's and the trace's clock), in the metadata key jl-sent-ns.
Under jitterlab (`measure = probe`) each server marks every request it handles: a wake at the handler's
start with that send time as its release, an end at its reply, in the series of its method (b.ping, b.price:
the unit, then the method); B also marks its outgoing call to C (b.call-quote: the call's start to its reply), so
the explanation of a Ping's wait can name B's workers blocked in calls. The client prints one JSON line per request:
{"method", "i", "sent_ns", "seconds", "status"}, then {"done": true}."""
import argparse
import json
import os
import sys
import threading
import time
from concurrent import futures

import grpc

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
import jitterlab_probe as probe  # noqa: E402  (a no-op outside a jitterlab run)

SENT = "jl-sent-ns"
MARGIN_S = 0.05
NEVER = 9e18  # time_remaining() without a deadline: about 9.2e18 s, not None (the published finding)


def sent_of(context):
    for k, v in context.invocation_metadata():
        if k == SENT:
            try:
                return int(v)
            except ValueError:
                return 0
    return 0


def say(**kw):
    sys.stdout.write(json.dumps(kw) + "\n")
    sys.stdout.flush()


class Server:
    def __init__(self, a):
        self.a = a
        self.channel = grpc.insecure_channel(f"127.0.0.1:{a.next}") if a.next else None

    def call(self, method, context, series):
        """A call downstream: with --mode propagate, the incoming call's remaining time less 50 ms and a
        callback that cancels it when the incoming call ends; with none, no deadline."""
        rpc = self.channel.unary_unary(f"/chain.{method[0].upper()}{method[1:]}/{method}")
        timeout = None
        if self.a.mode == "propagate":
            left = context.time_remaining()
            if left is not None and left < NEVER:
                timeout = max(0.0, left - MARGIN_S)
        start = time.monotonic_ns()
        probe.wake(start, series=series)
        try:
            fut = rpc.future(b"", timeout=timeout, metadata=((SENT, str(start)),))
            if self.a.mode == "propagate":
                context.add_callback(fut.cancel)
            return fut.result()
        except grpc.FutureCancelledError:  # cancelled with the incoming call: it has ended, say so to nobody
            context.abort(grpc.StatusCode.CANCELLED, f"{self.a.name}: the incoming call ended")
        finally:
            probe.end()

    def handler(self, method):
        name = self.a.name

        def serve(request, context):
            probe.wake(sent_of(context), series=method.lower())
            try:
                if method == "Order":
                    return self.call("price", context, "call-price")
                if method == "Price":
                    return self.call("quote", context, "call-quote")
                if method == "Quote":
                    end = time.monotonic() + self.a.delay
                    while time.monotonic() < end and context.is_active():
                        time.sleep(min(0.1, max(0.0, end - time.monotonic())))
                    return b"quote"
                return str(threading.get_native_id()).encode()  # the pong: the worker that served it
            except grpc.RpcError as e:
                context.abort(e.code(), f"{name}: downstream: {e.details()}")
            finally:
                probe.end()

        return grpc.unary_unary_rpc_method_handler(serve)


SERVES = {"a": ("Order",), "b": ("Price", "Ping"), "c": ("Quote",)}


def server(a):
    s = Server(a)
    pool = futures.ThreadPoolExecutor(max_workers=a.workers, thread_name_prefix=f"{a.name}-worker")
    srv = grpc.server(pool)
    for method in SERVES[a.name]:
        service = f"chain.{method}"
        srv.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(service, {method.lower(): s.handler(method)}),))
    srv.add_insecure_port(f"127.0.0.1:{a.port}")
    srv.start()
    say(server=a.name, port=a.port, workers=a.workers, mode=a.mode, delay=a.delay)
    try:
        srv.wait_for_termination()
    except KeyboardInterrupt:  # jitterlab ends its children with SIGINT
        srv.stop(0)


def client(a):
    ch_a = grpc.insecure_channel(f"127.0.0.1:{a.a}")
    ch_b = grpc.insecure_channel(f"127.0.0.1:{a.b}")
    for ch in (ch_a, ch_b):
        grpc.channel_ready_future(ch).result(timeout=30)
    order = ch_a.unary_unary("/chain.Order/order")
    ping = ch_b.unary_unary("/chain.Ping/ping")
    start = time.monotonic_ns() + 100_000_000  # everything scheduled from one moment, 100 ms ahead
    lock = threading.Lock()

    def one(method, rpc, i, at_ns, timeout):
        time.sleep(max(0.0, (at_ns - time.monotonic_ns()) / 1e9))
        sent = time.monotonic_ns()
        status, reply = "OK", b""
        try:
            reply = rpc(b"", timeout=timeout, metadata=((SENT, str(sent)),))
        except grpc.RpcError as e:
            status = e.code().name
        served_by = int(reply) if method == "ping" and reply.isdigit() else None  # the server thread's tid
        with lock:
            say(method=method, i=i, sent_ns=sent, seconds=(time.monotonic_ns() - sent) / 1e9, status=status,
                served_by=served_by)

    ts = [threading.Thread(target=one, args=("order", order, i, start, a.deadline)) for i in range(a.orders)]
    ts += [threading.Thread(target=one, args=("ping", ping, i, start + int(i * a.interval * 1e9), None))
           for i in range(a.pings)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    say(done=True)
    if a.linger:  # a run's measured phase outlasts the client: keep its unit alive, doing nothing
        time.sleep(a.linger)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="role", required=True)
    s = sub.add_parser("server")
    s.add_argument("--name", choices=sorted(SERVES), required=True)
    s.add_argument("--port", type=int, required=True)
    s.add_argument("--workers", type=int, default=16)
    s.add_argument("--next", type=int, default=0, help="the port of the service this one calls")
    s.add_argument("--mode", choices=("none", "propagate"), default="none")
    s.add_argument("--delay", type=float, default=5.0, help="C: seconds before it answers")
    c = sub.add_parser("client")
    c.add_argument("--a", type=int, default=50151)
    c.add_argument("--b", type=int, default=50152)
    c.add_argument("--orders", type=int, default=8)
    c.add_argument("--pings", type=int, default=10)
    c.add_argument("--interval", type=float, default=0.2)
    c.add_argument("--deadline", type=float, default=None, help="the client's deadline on each Order (s)")
    c.add_argument("--linger", type=float, default=0, help="seconds to stay after the last reply")
    a = p.parse_args()
    if a.role == "server" and a.name != "c" and not a.next:
        p.error(f"server {a.name} calls the next service: --next PORT")
    (server if a.role == "server" else client)(a)


if __name__ == "__main__":
    main()
