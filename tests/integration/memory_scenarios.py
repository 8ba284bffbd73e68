"""The scenarios the run's memory budget is checked on (issue 27), for tests/integration/test_memory.py and
tests/bench/memory.sh: the issue's loops beside a busy CFS neighbour, the same with irq and timer events, an
executor, a probed C loop, a neighbour forking thousands of children, six CFS neighbours switching 2000
times a second each. Each is a [run] of 4 s with a 1 s warm-up; callers override the duration."""
import textwrap

FOUR = textwrap.dedent("""
    [run]
    duration = 4s
    warmup = 1s
    trace = sched

    [thread loop]
    policy = fifo
    priority = 70
    cpus = 1
    count = 4
    rate = 1000Hz
    work = spin 10us

    [thread cfs]
    cpus = 1
    work = sin 100000
""").lstrip()

NEIGHBOUR = "[thread cfs]\ncpus = 1\nwork = sin 100000"


def scenarios(probe_loop):
    """name -> scenario text; PROBE_LOOP: the path of build/examples/probe_loop"""
    return {
        "four": FOUR,
        "sched_irq_timer": FOUR.replace("trace = sched", "trace = sched, irq, timer"),
        "executor": textwrap.dedent("""
            [run]
            duration = 4s
            warmup = 1s
            trace = sched

            [executor pool]
            threads = 4
            cpus = 1

            [callback control]
            executor = pool
            group = control
            period = 1ms
            work = spin 50us

            [callback scan]
            executor = pool
            group = scan
            period = 16667us
            work = sin 500000
        """).lstrip(),
        "probe": FOUR.replace("[thread loop]\npolicy = fifo\npriority = 70\ncpus = 1\ncount = 4\nrate = 1000Hz\n"
                              "work = spin 10us",
                              f"[thread ctl]\nexec = {probe_loop} 1000 50\nmeasure = probe\npolicy = fifo\n"
                              "priority = 70\ncpus = 1"),
        "churn": FOUR.replace(NEIGHBOUR, "[thread churn]\ncpus = 1\nexec = /bin/sh -c 'while :; do /bin/true; done'"),
        "switchers": FOUR.replace(NEIGHBOUR, "[thread busy]\ncpus = 1\ncount = 6\nperiod = 500us\nwork = spin 30us\n"
                                             "measure = no"),
    }
