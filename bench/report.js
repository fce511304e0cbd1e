// Turns bench/results/*.json into the human summary bench/results/RESULTS.md (plus bench/FINDINGS.md if any).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const read = (dir, name) => {
  const file = join(dir, `${name}.json`);
  return existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : null;
};
const verdict = (pass) => (pass ? '**PASS**' : '**FAIL**');
const range = (s, unit = '') => `${s.median}${unit} (min ${s.min}, max ${s.max}, n=${s.n})`;

function overheadSection(r) {
  return [
    `## Orchestration overhead per iteration — ${verdict(r.pass)}`,
    '',
    `${r.rounds} interleaved rounds of ${r.iterations} iterations, no-op agent \`${r.agent}\`. Medians over rounds.`,
    '',
    '| | ms per iteration |',
    '|---|---|',
    `| bare bash loop (\`while ...; do agent < PROMPT.md; done\`) | ${range(r.bash_loop_ms_per_iteration)} |`,
    `| bash loop writing a log file per iteration | ${range(r.bash_loop_logged_ms_per_iteration)} |`,
    `| ringmaster, in the loop (run_started → run_finished) | ${range(r.ringmaster_ms_per_iteration_in_loop)} |`,
    `| ringmaster, whole process / iterations | ${range(r.ringmaster_ms_per_iteration_whole_process)} |`,
    ...(r.library_loop_without_store_ms_per_iteration
      ? [`| the loop alone through the library (no store, lock or checkpoints) | ${range(r.library_loop_without_store_ms_per_iteration)} |`]
      : []),
    '',
    ...(r.store_cost_ms_per_iteration !== undefined
      ? [`- Cost of the store (SQLite rows and events per iteration): ${r.store_cost_ms_per_iteration} ms per iteration (CLI in-loop median − library loop median).`]
      : []),
    `- **Ratio (ringmaster in-loop / bare bash loop, per iteration): ${r.ratio_per_iteration}x** — target ≤ 2x.`,
    `- Ratio against the bash loop that also writes per-iteration log files: ${r.ratio_vs_logged_loop}x.`,
    `- Whole-process ratio for ${r.iterations} iterations (includes ringmaster's one-off startup and exit): ${r.ratio_whole_process}x.`,
    `- Ringmaster fixed cost per run (process wall − loop time: Node startup, module loading, config, exit): ${range(r.ringmaster_fixed_ms_startup_and_exit, ' ms')}.`,
    '',
  ];
}

function bigSection(r) {
  return [
    `## 1 GiB agent output — ${verdict(r.pass)}`,
    '',
    `${r.rounds} interleaved rounds; the agent writes ${r.bytes_total} bytes, the completion signal is the last line. Peak RSS from ${r.peak_rss_source}.`,
    '',
    '| | median (min–max) |',
    '|---|---|',
    `| ringmaster peak RSS | ${r.ringmaster_peak_rss_mb.median} MiB (${r.ringmaster_peak_rss_mb.min}–${r.ringmaster_peak_rss_mb.max}) |`,
    `| ringmaster wall time | ${r.ringmaster_wall_s.median} s (${r.ringmaster_wall_s.min}–${r.ringmaster_wall_s.max}) |`,
    r.ringmaster_cpu_s ? `| ringmaster CPU (user+sys, incl. agent) | ${r.ringmaster_cpu_s.median} s |` : null,
    `| ringmaster throughput, whole process | ${r.ringmaster_throughput_mb_s_whole_process.median} MB/s (${r.ringmaster_throughput_mb_s_whole_process.min}–${r.ringmaster_throughput_mb_s_whole_process.max}) |`,
    `| ringmaster throughput, the iteration | ${r.ringmaster_throughput_mb_s_iteration.median} MB/s |`,
    `| baseline \`agent > /dev/null\` | ${r.baseline_dev_null_throughput_mb_s.median} MB/s (${r.baseline_dev_null_throughput_mb_s.min}–${r.baseline_dev_null_throughput_mb_s.max}) |`,
    `| baseline \`agent > file\` | ${r.baseline_file_throughput_mb_s.median} MB/s (${r.baseline_file_throughput_mb_s.min}–${r.baseline_file_throughput_mb_s.max}) |`,
    '',
    `- Exit codes: ${r.exit_codes.join(', ')}; completion signal found at the very end every run: ${r.signal_found_every_run ? 'yes' : 'NO'}; iteration log complete (all bytes): ${r.log_file_complete ? 'yes' : 'NO'}.`,
    ...(r.sizes ? [`- By size: ${r.sizes.map((x) => `${x.mib} MiB: peak ${x.peak_rss_mib} MiB, ${x.throughput_mb_s} MB/s, signal ${x.signal_found ? 'found' : 'MISSED'}`).join('; ')}.`] : []),
    `- Echo rule ${r.echo_rule_active ? 'active (the prompt shows the signal in a sentence)' : 'inactive'}. Target: ${r.target}. Throughput in MB/s = 10^6 bytes/s.`,
    '',
  ].filter((l) => l !== null);
}

function stopSection(r) {
  const h = r.honours_sigterm;
  const i = r.ignores_sigterm;
  return [
    `## Stop latency — ${verdict(r.pass)}`,
    '',
    'SIGINT sent to the ringmaster process once the agent (a shell plus a grandchild `sleep`, in its own process group) runs; the agent tree counts as gone when neither pid nor any member of its process group is alive (zombies count as gone).',
    '',
    '| agent | SIGINT → agent tree gone | SIGINT → ringmaster exited | exit codes |',
    '|---|---|---|---|',
    `| honours SIGTERM (grace ${h.kill_grace}) | median ${h.tree_gone_ms.median} ms, max ${h.tree_gone_ms.max} ms (n=${h.tree_gone_ms.n}) | median ${h.ringmaster_exit_ms.median} ms, max ${h.ringmaster_exit_ms.max} ms | ${[...new Set(h.exit_codes)].join(', ')} |`,
    `| ignores SIGTERM (${i.env}) | median ${i.tree_gone_ms.median} ms, max ${i.tree_gone_ms.max} ms (n=${i.tree_gone_ms.n}) | median ${i.ringmaster_exit_ms.median} ms, max ${i.ringmaster_exit_ms.max} ms | ${[...new Set(i.exit_codes)].join(', ')} |`,
    '',
    `- Target: tree gone < 500 ms (max) for an agent honouring SIGTERM, exit code 130.`,
    '',
  ];
}

function dashboardSection(r) {
  const { board, output, live } = r;
  const f = (x) => `${x.median} ms (min ${x.min}, max ${x.max}, n=${x.n})`;
  return [
    `## Dashboard — ${verdict(r.pass)}`,
    '',
    'Headless Debian Chromium (playwright-core) against a real `ringmaster serve`; the built dashboard (dist/web). First render = from navigation start to the first DOM change after which the page shows what is measured (a MutationObserver sets the time), in a fresh browser context each round (cold cache).',
    '',
    '| | result |',
    '|---|---|',
    `| board, ${board.runs} runs (${Object.entries(board.by_status).map(([k, v]) => `${v} ${k}`).join(', ')}): first render with every column | ${f(board.first_render_ms)}; ${board.cards_in_dom} cards in the DOM (virtualised), heap ${board.memory.heap_mib} MiB, ${board.memory.dom_nodes} DOM nodes |`,
    `| run page, ${output.lines.toLocaleString('en-US')} output lines: first render of the last line | ${f(output.first_render_ms)}; heap ${output.memory.heap_mib} MiB, ${output.memory.dom_nodes} DOM nodes |`,
    `| scrolling that page like a wheel, 120 px a frame for ${output.scroll.wheel.frames} frames | frame time p50 ${output.scroll.wheel.p50_ms} ms, p95 ${output.scroll.wheel.p95_ms} ms, max ${output.scroll.wheel.max_ms} ms; ${output.scroll.rows_in_dom} rows in the DOM |`,
    `| jumping to ${output.scroll.jump.frames} far-apart places, a frame each | frame time p50 ${output.scroll.jump.p50_ms} ms, p95 ${output.scroll.jump.p95_ms} ms, max ${output.scroll.jump.max_ms} ms |`,
    '',
    `Live: ${live.runs} runs stream an hour's worth of output each (${live.hour_equivalent}: ${live.lines_total.toLocaleString('en-US')} lines in all), at full speed instead of over an hour (took ${live.duration_s} s). A board page and a run page following the first run (from the iteration it was at when the page opened) watch it; heap after a forced GC.`,
    '',
    '| progress | elapsed | board heap | board DOM nodes | run page heap | run page rows | server RSS |',
    '|---|---|---|---|---|---|---|',
    ...live.samples.map((s) => `| ${Math.round(s.progress * 100)}% | ${s.elapsed_s} s | ${s.board.heap_mib} MiB | ${s.board.dom_nodes} | ${s.run_page.heap_mib} MiB | ${s.run_page.rows} | ${s.server_rss_mib} MiB |`),
    '',
    `- Board heap growth from the first sample to the end: ${live.board_heap_growth_mib} MiB (bounded: one summary and one "now" line per run). Run page: ${live.run_page_heap_growth_mib} MiB for the rows it keeps (at most 200,000, then the oldest go).`,
    '- Targets (ours; the issue asks for the numbers): board first render < 3 s, run page < 5 s, wheel-scroll frame p95 < 50 ms, board heap growth < 10 MiB, run page heap < 256 MiB.',
    '',
  ];
}

function managerSection(r) {
  const lag = r.event_loop_lag_ms;
  const idle = r.event_loop_lag_ms_idle_baseline;
  return [
    `## Loop manager: ${r.loops} loops in one server — ${verdict(r.pass)}`,
    '',
    `\`ringmaster serve\` (as a library in bench/manager-server.js, so that its own event loop and RSS are measured) drives ${r.loops} loops of a fake agent that sleeps ~1 s and exits; measured for ${r.seconds} s once all ${r.running_during_measure} run. A WebSocket client subscribed to every run measures event latency (stored → received).`,
    '',
    '| | result | target |',
    '|---|---|---|',
    `| event-loop delay (perf_hooks), under load | p50 ${lag.p50} ms, p99 ${lag.p99} ms, max ${lag.max} ms (${lag.samples} samples) | p99 < ${r.targets.event_loop_lag_p99_ms} ms |`,
    `| event-loop delay, idle server (baseline, same run) | p50 ${idle.p50} ms, p99 ${idle.p99} ms, max ${idle.max} ms | |`,
    `| WebSocket event latency | p50 ${r.ws_latency_ms.p50} ms, p99 ${r.ws_latency_ms.p99} ms, max ${r.ws_latency_ms.max} ms (${r.ws_latency_ms.events} events) | p99 < ${r.targets.ws_latency_p99_ms} ms |`,
    `| iterations in the window | ${r.iterations_in_window} (${r.iterations_per_second} per second) | |`,
    `| server RSS | idle ${Math.round(r.rss_kb.idle / 1024)} MiB, median ${Math.round(r.rss_kb.median / 1024)} MiB, max ${Math.round(r.rss_kb.max / 1024)} MiB; ${r.rss_kb_per_active_loop} KiB per active loop | |`,
    `| creating the ${r.loops} runs through the API / shutting the server down | ${r.create_ms} ms / ${r.shutdown_ms} ms | |`,
    '',
  ];
}

function workflowStepsSection(r) {
  return [
    `## A long steps workflow: the cost per step does not grow with its length — ${verdict(r.pass)}`,
    '',
    '`workflow run` of one-iteration steps (agent `true`, checkpoints off); each size in a fresh data directory. Medians over runs.',
    '',
    '| steps | runs | steps/s | CPU ms per step | runs.meta bytes (rewritten per step) | definition bytes (stored once) |',
    '|---|---|---|---|---|---|',
    ...r.by_size.map((s) => `| ${s.steps} | ${s.runs} | ${s.steps_per_s} | ${s.cpu_ms_per_step} | ${s.meta_bytes} | ${s.definition_bytes} |`),
    '',
    '- CPU per step of the smallest workflow includes Node start-up spread over fewer steps.',
    ...r.runs.filter((x) => x.steps === r.by_size.at(-1).steps).map((x) => `- ${x.steps} steps: first 40 steps at ${x.first_steps_per_s}/s, last 40 at ${x.last_steps_per_s}/s.`),
    '',
  ];
}

function sandboxSection(r) {
  return [
    `## Sandbox per iteration — ${verdict(r.pass)}`,
    '',
    `${r.rounds} interleaved rounds of ${r.iterations} iterations, no-op agent \`${r.agent}\`, in-loop time. Medians over rounds.`,
    '',
    '| | ms per iteration | overhead against none |',
    '|---|---|---|',
    ...Object.entries(r.ms_per_iteration).map(([k, v]) => `| ${k} | ${range(v)} | ${k === 'none' ? '' : `${r.overhead_ms_per_iteration[k]} ms`} |`),
    '',
    `- Target: ${r.target}.`,
    '',
  ];
}

/** Writes RESULTS.md from the JSON results present in `dir`; returns its path. */
export function writeReport(dir) {
  const overhead = read(dir, 'overhead');
  const big = read(dir, 'big-output');
  const stop = read(dir, 'stop-latency');
  const dashboard = read(dir, 'dashboard');
  const manager = read(dir, 'manager');
  const sandbox = read(dir, 'sandbox');
  const workflowSteps = read(dir, 'workflow-steps');
  const first = overhead ?? big ?? stop ?? dashboard ?? manager;
  const m = first?.machine ?? {};
  const dates = [...new Set([overhead, big, stop, dashboard, manager].filter(Boolean).map((r) => r.date.slice(0, 16).replace('T', ' ')))];
  const src = first?.source ?? {};
  const lines = [
    '# Ringmaster benchmark results',
    '',
    `Generated by \`npm run bench\` (bench/run.js). Date (UTC): ${dates.join(', ')}. Code: dist/ built from commit ${src.commit}${src.src_dirty ? ' plus uncommitted src/ changes of that moment' : ''}.`,
    `Machine: ${m.nproc} CPUs (${m.cpu}), ${m.memTotalMb} MB RAM, Linux ${m.kernel}, Node ${m.node} (${m.platform}).`,
    '',
    '| benchmark | result | target | verdict |',
    '|---|---|---|---|',
  ];
  if (overhead) lines.push(`| overhead per iteration | ${overhead.ratio_per_iteration}x the bare bash loop (${overhead.ringmaster_ms_per_iteration_in_loop.median} vs ${overhead.bash_loop_ms_per_iteration.median} ms) | ≤ 2x | ${verdict(overhead.pass)} |`);
  if (big) lines.push(`| 1 GiB output | peak RSS ${big.ringmaster_peak_rss_mb.max} MiB (max), ${big.ringmaster_throughput_mb_s_whole_process.median} MB/s, signal found: ${big.signal_found_every_run ? 'yes' : 'no'} | < 100 MiB, >= 500 MB/s | ${verdict(big.pass)} |`);
  if (stop) lines.push(`| stop latency | agent tree gone in ${stop.honours_sigterm.tree_gone_ms.median} ms median, ${stop.honours_sigterm.tree_gone_ms.max} ms max; ringmaster exits in ${stop.honours_sigterm.ringmaster_exit_ms.median} ms | < 500 ms | ${verdict(stop.pass)} |`);
  if (dashboard) {
    const d = dashboard;
    lines.push(`| dashboard | board of ${d.board.runs} runs in ${d.board.first_render_ms.median} ms; ${d.output.lines.toLocaleString('en-US')} lines in ${d.output.first_render_ms.median} ms, wheel-scroll p95 ${d.output.scroll.wheel.p95_ms} ms; board heap +${d.live.board_heap_growth_mib} MiB over ${d.live.lines_total.toLocaleString('en-US')} live lines | see below | ${verdict(d.pass)} |`);
  }
  if (manager) lines.push(`| loop manager | ${manager.loops} loops: event-loop p99 ${manager.event_loop_lag_ms.p99} ms, WebSocket p99 ${manager.ws_latency_ms.p99} ms, ${manager.rss_kb_per_active_loop} KiB RSS per loop | p99 < ${manager.targets.event_loop_lag_p99_ms} ms / < ${manager.targets.ws_latency_p99_ms} ms | ${verdict(manager.pass)} |`);
  if (sandbox) lines.push(`| sandbox per iteration | +${sandbox.overhead_ms_per_iteration['sandbox network none']} ms (network none), +${sandbox.overhead_ms_per_iteration['sandbox network agent (proxy)']} ms (network agent) | ≤ 10 ms | ${verdict(sandbox.pass)} |`);
  lines.push('');
  if (overhead) lines.push(...overheadSection(overhead));
  if (sandbox) lines.push(...sandboxSection(sandbox));
  if (big) lines.push(...bigSection(big));
  if (stop) lines.push(...stopSection(stop));
  if (dashboard) lines.push(...dashboardSection(dashboard));
  if (manager) lines.push(...managerSection(manager));
  if (workflowSteps) lines.push(...workflowStepsSection(workflowSteps));
  const findings = join(dir, '..', 'FINDINGS.md');
  if (existsSync(findings)) lines.push(readFileSync(findings, 'utf8').trimEnd(), '');
  const path = join(dir, 'RESULTS.md');
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}
