#!/bin/sh
# Stop-latency bench agent: a shell (honours SIGTERM) with a grandchild `sleep` (honours SIGTERM).
# Writes "<own pid> <grandchild pid>" to $BENCH_PIDFILE once both run, then waits forever.
# With BENCH_IGNORE_TERM=1 both ignore SIGTERM (SIG_IGN is inherited across fork/exec), so only SIGKILL ends them.
cat > /dev/null
if [ "${BENCH_IGNORE_TERM:-0}" = 1 ]; then trap '' TERM; fi
sleep 600 &
child=$!
printf '%s %s\n' "$$" "$child" > "$BENCH_PIDFILE.tmp"
mv "$BENCH_PIDFILE.tmp" "$BENCH_PIDFILE"
wait
