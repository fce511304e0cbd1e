#!/bin/sh
# Manager bench agent: reads the prompt, says it works, sleeps about a second, exits 0 (never signals completion).
cat > /dev/null
echo "working"
sleep 1
