# The load average around a benchmark, sourced by bench_nginx.sh and bench_uring.sh: a run whose
# start is above 0.5 per core is not idle, and its figures are never a headline.
#   load_begin NAME   reads the start (load_start) and warns on stderr when it is not idle
#   load_now          the 1-minute load average now
#   load_report       reads the end and prints the line the results carry
load_cores=$(nproc)
load_now() { cut -d' ' -f1 /proc/loadavg; }
load_per_core() { awk -v l="$1" -v c="$load_cores" 'BEGIN { printf "%.2f", l / c }'; }
load_begin() {
    load_start=$(load_now)
    awk -v l="$load_start" -v c="$load_cores" -v n="$1" 'BEGIN { if (l / c > 0.5) printf "%s: load average %s on %d cores: not idle, the figures are indicative only\n", n, l, c }' >&2
}
load_report() {
    local end idle
    end=$(load_now)
    idle=$(awk -v l="$load_start" -v c="$load_cores" 'BEGIN { print l / c <= 0.5 ? "idle" : "NOT IDLE: figures indicative only, never a headline" }')
    printf 'load average (1 min) at start %s (%s per core, %s), at end %s (%s per core); %s cores\n' \
        "$load_start" "$(load_per_core "$load_start")" "$idle" "$end" "$(load_per_core "$end")" "$load_cores"
}
