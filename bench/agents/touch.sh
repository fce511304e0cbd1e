#!/bin/sh
# Reads the prompt, then changes one tracked file and adds one untracked file: every iteration has something to track
# and a checkpoint something to commit.
cat > /dev/null
date +%s%N > src/changed.txt
date +%s%N > "notes-$$.txt"
