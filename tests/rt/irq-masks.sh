#!/bin/sh
# Every IRQ thread's mask and its IRQ's effective CPU, before and 3 s after each of N shielded runs
# (isolate = 1, irq_affinity = housekeeping), in one boot: what a run leaves changed (issue 39). Run it in a
# fresh RT guest:  tests/rt/guest.sh run -- 'sh tests/rt/irq-masks.sh 4'
# Prints per run the threads whose mask or IRQ changed, and what the run reported as pending.
n=${1:-4}
bin=${JITTERLAB:-build/jitterlab}
dir=$(mktemp -d /tmp/irq-masks.XXXXXX)
ini=$dir/irqmasks.ini
cat > "$ini" <<'INI'
[run]
name = irqmasks
duration = 2s
warmup = 0s
trace = off
isolate = 1
irq_affinity = housekeeping

[thread control]
policy = fifo
priority = 80
cpus = 1
rate = 1kHz
work = spin 50us
INI
snap() {
    for d in /proc/[0-9]*; do
        c=$(cat "$d/comm" 2>/dev/null)
        case $c in irq/*)
            i=${c#irq/}; i=${i%%-*}
            echo "$c mask=$(grep Cpus_allowed_list "$d/status" | cut -f2) irq_eff=$(cat "/proc/irq/$i/effective_affinity_list")" ;;
        esac
    done | sort
}
k=1
while [ "$k" -le "$n" ]; do
    snap > $dir/before
    "$bin" run "$ini" --out $dir/out --json > $dir/summary.json 2>/dev/null
    rc=$?
    sleep 3
    snap > $dir/after
    echo "run $k (exit $rc): $(wc -l < $dir/before) IRQ threads"
    diff $dir/before $dir/after | sed -n 's/^> /  changed: /p'
    /usr/bin/python3 -c "
import json
p = json.load(open('$dir/summary.json'))['host']['restore']['pending']
for x in p:
    if x['kind'] == 'irq_thread' or x.get('name'):
        print('  pending:', x['kind'], x['irq'], x.get('name', ''), x.get('effective_before', ''), '->', x.get('effective_after', x.get('mask', '')))
"
    k=$((k + 1))
done
rm -rf "$dir"
