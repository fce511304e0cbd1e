#!/bin/sh
# No-op bench agent: reads the prompt from stdin and exits 0 without output (never signals completion).
exec cat > /dev/null
