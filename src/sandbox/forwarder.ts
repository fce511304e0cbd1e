// The inside of a sandbox's network (`agent` and `packages`): a small script that the same Node runs as the
// sandbox's first process. It listens on the sandbox's own loopback (an HTTP proxy port, and the ports of local
// model servers named by base URLs), forwards every connection to the host's proxy through its unix socket, then
// runs the agent with HTTP(S)_PROXY set and ends with the agent's exit status.

/** The script (CommonJS, no dependencies), run as `node -e FORWARDER_SCRIPT <socket> <bridges> <command> [args...]`. */
export const FORWARDER_SCRIPT = String.raw`
const net = require('node:net');
const { spawn } = require('node:child_process');
const [socketPath, bridgeList, command, ...args] = process.argv.slice(1);
const bridges = bridgeList === '-' ? [] : bridgeList.split(',').map((b) => { const i = b.lastIndexOf(':'); return { host: b.slice(0, i), port: Number(b.slice(i + 1)) }; });
function pipeBoth(a, b) { a.on('error', () => b.destroy()); b.on('error', () => a.destroy()); a.pipe(b); b.pipe(a); }
function tunnel(client, host, port) {
  const up = net.connect(socketPath);
  let head = Buffer.alloc(0);
  const onData = (chunk) => {
    head = Buffer.concat([head, chunk]);
    const end = head.indexOf('\r\n\r\n');
    if (end < 0) return;
    up.off('data', onData);
    if (!/^HTTP\/1\.[01] 200/.test(head.toString('latin1', 0, end))) { client.destroy(); up.destroy(); return; }
    const rest = head.subarray(end + 4);
    if (rest.length > 0) client.write(rest);
    pipeBoth(client, up);
  };
  up.on('data', onData);
  up.on('error', () => client.destroy());
  client.on('error', () => up.destroy());
  up.write('CONNECT ' + host + ':' + port + ' HTTP/1.1\r\nHost: ' + host + ':' + port + '\r\n\r\n');
}
function listen(server, port, host) { return new Promise((resolve, reject) => { server.once('error', reject); server.listen(port, host, () => resolve(server.address().port)); }); }
(async () => {
  const proxy = net.createServer((c) => pipeBoth(c, net.connect(socketPath)));
  const proxyPort = await listen(proxy, 0, '127.0.0.1');
  for (const b of bridges) {
    const at = b.host === 'localhost' ? '127.0.0.1' : b.host;
    await listen(net.createServer((c) => tunnel(c, b.host, b.port)), b.port, at);
  }
  const url = 'http://127.0.0.1:' + proxyPort;
  const noProxy = ['localhost', '127.0.0.1', '::1', process.env.NO_PROXY || ''].filter(Boolean).join(',');
  const env = { ...process.env, HTTP_PROXY: url, HTTPS_PROXY: url, http_proxy: url, https_proxy: url, NO_PROXY: noProxy, no_proxy: noProxy };
  const child = spawn(command, args, { stdio: 'inherit', env });
  // A stop reaches the agent directly (same process group): this process only waits for it to end.
  for (const s of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(s, () => undefined);
  child.on('error', (e) => { process.stderr.write('ringmaster sandbox: ' + command + ': ' + e.message + '\n'); process.exit(e.code === 'ENOENT' ? 127 : 126); });
  child.on('exit', (code, signal) => process.exit(code === null ? 128 + (require('node:os').constants.signals[signal] || 0) : code));
})().catch((e) => { process.stderr.write('ringmaster sandbox: network setup failed: ' + e.message + '\n'); process.exit(125); });
`;
