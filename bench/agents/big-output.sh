#!/bin/sh
# Bulk-output bench agent: reads the prompt, writes BENCH_BYTES (default 1 GiB) of text lines, then the
# completion signal as the very last line, so a run only succeeds if the whole stream was scanned.
cat > /dev/null
yes 'ringmaster bench filler line: the quick brown fox jumps over the lazy dog 0123456789' | head -c "${BENCH_BYTES:-1073741824}"
printf '\n<promise>COMPLETE</promise>\n'
