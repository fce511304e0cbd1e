// The pure redaction module: which variables are secrets, replacing them in text, JSON, argv and streams.
import { describe, expect, it } from 'vitest';
import {
  byteStreamRedactor,
  redactorOf,
  isSecretName,
  redactArgv,
  redactDeep,
  redactor,
  restoreArgv,
  secretsOf,
  secretsOfArgv,
  textStreamRedactor,
} from '../../src/core/redact.js';

const ENV = {
  ANTHROPIC_API_KEY: 'sk-ant-0123456789abcdef',
  OPENAI_API_KEY: 'sk-proj-abcdefghijklmnop',
  GH_TOKEN: 'ghp_abcdefghijklmnopqrstu',
  AWS_SECRET_ACCESS_KEY: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCY',
  DB_PASSWORD: 'hunter2hunter2',
  SHORT_TOKEN: 'abc',
  PWD: '/home/someone/project',
  HOME: '/home/someone',
  PATH: '/usr/bin:/bin',
};

describe('which variables are secrets', () => {
  it.each(['ANTHROPIC_API_KEY', 'OPENAI_API_KEY', 'GEMINI_API_KEY', 'GITHUB_TOKEN', 'GH_TOKEN', 'COPILOT_GITHUB_TOKEN', 'CLAUDE_CODE_OAUTH_TOKEN', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN', 'DB_PASSWORD', 'NPM_TOKEN', 'MY_APIKEY', 'SOME_SECRET', 'GOOGLE_APPLICATION_CREDENTIALS', 'ANTHROPIC_AUTH_TOKEN', 'SLACK_WEBHOOK_URL', 'RINGMASTER_NOTIFY_WEBHOOKS'])('%s is', (name) => {
    expect(isSecretName(name)).toBe(true);
  });
  it.each(['PATH', 'HOME', 'PWD', 'OLDPWD', 'SSH_AUTH_SOCK', 'GIT_AUTHOR_NAME', 'KEYBOARD', 'LANG', 'MONKEY_BUSINESS'])('%s is not', (name) => {
    expect(isSecretName(name)).toBe(false);
  });
  it('short values are not redacted; the longest is replaced first', () => {
    expect(secretsOf(ENV).map((s) => s.name)).toEqual(['AWS_SECRET_ACCESS_KEY', 'GH_TOKEN', 'OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'DB_PASSWORD']);
  });
});

describe('redaction', () => {
  const redact = redactor(ENV);
  it('replaces each value by a marker naming its variable, wherever it is', () => {
    expect(redact('key=sk-ant-0123456789abcdef; pw hunter2hunter2hunter2hunter2')).toBe(
      'key=[REDACTED:ANTHROPIC_API_KEY]; pw [REDACTED:DB_PASSWORD][REDACTED:DB_PASSWORD]',
    );
    expect(redact('abc /home/someone/project')).toBe('abc /home/someone/project');
  });
  it('redacts every string of a JSON value, keys included', () => {
    expect(redactDeep({ a: ['x sk-proj-abcdefghijklmnop'], 'ghp_abcdefghijklmnopqrstu': 1, n: 2, z: null }, redact)).toEqual({
      a: ['x [REDACTED:OPENAI_API_KEY]'],
      '[REDACTED:GH_TOKEN]': 1,
      n: 2,
      z: null,
    });
  });
  it('argv: env values by name, secret-looking option values anonymously; restored from the env', () => {
    const argv = ['agent', '--token', 'ghp_abcdefghijklmnopqrstu', '--api-key=literal-secret-value', '--key', 'short', '--max-tokens', '4096', '--author', 'someone-long-name'];
    const stored = redactArgv(argv, redact);
    expect(stored).toEqual(['agent', '--token', '[REDACTED:GH_TOKEN]', '--api-key=[REDACTED]', '--key', 'short', '--max-tokens', '4096', '--author', 'someone-long-name']);
    expect(secretsOfArgv(argv)).toEqual([
      { name: '--token', value: 'ghp_abcdefghijklmnopqrstu' },
      { name: '--api-key', value: 'literal-secret-value' },
    ]);
    expect(restoreArgv(stored.slice(0, 3), ENV)).toEqual({ argv: argv.slice(0, 3), missing: [] });
    expect(restoreArgv(stored, {}).missing.sort()).toEqual(['GH_TOKEN', 'an option value']);
  });
  it('streams: a secret split anywhere across chunks is replaced, the rest is kept byte for byte', () => {
    const text = 'a sk-ant-0123456789abcdef b ghp_abcdefghijklmnopqrstu c é hunter2hunter2';
    const want = redact(text);
    for (let size = 1; size <= text.length; size++) {
      const t = textStreamRedactor(redact);
      const b = byteStreamRedactor(redact.secrets);
      let outText = '';
      const outBytes: Buffer[] = [];
      const bytes = Buffer.from(text);
      for (let i = 0; i < text.length; i += size) outText += t.push(text.slice(i, i + size));
      for (let i = 0; i < bytes.length; i += size) outBytes.push(b.push(bytes.subarray(i, i + size)));
      outText += t.end();
      outBytes.push(b.end());
      expect(outText, `text, chunks of ${size}`).toBe(want);
      expect(Buffer.concat(outBytes).toString('utf8'), `bytes, chunks of ${size}`).toBe(want);
    }
  });
  it('streams: a secret that repeats its own start, after near misses, is replaced wherever the chunks are cut', () => {
    const secrets = [
      { name: 'A_TOKEN', value: 'abab-abab-abx' },
      { name: 'B_TOKEN', value: 'aaaaaaaab' },
    ];
    const text = 'ab abab-abab-ab abab-abab-abx aaaaaaa aaaaaaaaab aaaaaaaaaab abab-abab-abab-abx end ab';
    const want = 'ab abab-abab-ab [REDACTED:A_TOKEN] aaaaaaa a[REDACTED:B_TOKEN] aa[REDACTED:B_TOKEN] abab-[REDACTED:A_TOKEN] end ab';
    expect(redactorOf(secrets)(text)).toBe(want);
    const bytes = Buffer.from(text);
    for (let size = 1; size <= bytes.length; size++) {
      const b = byteStreamRedactor(secrets);
      const out: Buffer[] = [];
      for (let i = 0; i < bytes.length; i += size) out.push(b.push(bytes.subarray(i, i + size)));
      out.push(b.end());
      expect(Buffer.concat(out).toString('utf8'), `chunks of ${size}`).toBe(want);
    }
  });
  it('without secrets, everything passes unchanged', () => {
    const none = redactor({ PATH: '/bin' });
    expect(none('sk-ant-0123456789abcdef')).toBe('sk-ant-0123456789abcdef');
    const chunk = Buffer.from('x');
    expect(byteStreamRedactor([]).push(chunk)).toBe(chunk);
  });
});
