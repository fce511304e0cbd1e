// Reads the assistant text of the current turn from a Claude Code transcript (JSONL), for turns that end with a tool call.
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';

/** Only the end of the transcript is read (bounded memory on long sessions). */
export const TRANSCRIPT_TAIL_BYTES = 4 * 1024 * 1024;

interface TranscriptEntry {
  type?: unknown;
  isMeta?: unknown;
  message?: { role?: unknown; content?: unknown };
}

function textBlocks(content: unknown): string[] {
  if (typeof content === 'string') return [content];
  if (!Array.isArray(content)) return [];
  const texts: string[] = [];
  for (const block of content as unknown[]) {
    if (typeof block === 'object' && block !== null) {
      const b = block as { type?: unknown; text?: unknown };
      if (b.type === 'text' && typeof b.text === 'string') texts.push(b.text);
    }
  }
  return texts;
}

function isToolResult(content: unknown): boolean {
  return (
    Array.isArray(content) &&
    content.length > 0 &&
    (content as unknown[]).every((b) => typeof b === 'object' && b !== null && (b as { type?: unknown }).type === 'tool_result')
  );
}

/**
 * True when a user entry starts a turn: a real prompt (not meta), or the feedback of a blocking Stop hook.
 * Meta nudges the CLI inserts inside a turn ("Your previous response had no visible output") do not.
 */
function startsTurn(entry: TranscriptEntry): boolean {
  const content = entry.message?.content;
  if (isToolResult(content)) return false;
  if (entry.isMeta !== true) return true;
  return textBlocks(content).some((t) => t.startsWith('Stop hook feedback:'));
}

/** The assistant texts of the last turn in transcript JSONL text, in order. Malformed lines are skipped. */
export function currentTurnAssistantTexts(jsonl: string): string[] {
  const lines = jsonl.split('\n');
  const texts: string[] = [];
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i]?.trim() ?? '';
    if (!line.startsWith('{')) continue;
    let entry: TranscriptEntry;
    try {
      entry = JSON.parse(line) as TranscriptEntry;
    } catch {
      continue;
    }
    if (entry.type === 'assistant') texts.unshift(...textBlocks(entry.message?.content));
    else if (entry.type === 'user' && startsTurn(entry)) break;
  }
  return texts;
}

/**
 * Reads the current turn's assistant text from the transcript file (its last TRANSCRIPT_TAIL_BYTES). Only a
 * regular file is read: the path comes from stdin, and a FIFO would block the open (and the hook) for ever,
 * a device like /dev/zero would never end. Opened non-blocking, then checked on the open descriptor.
 */
export async function readCurrentTurnText(transcriptPath: string): Promise<string> {
  const handle = await open(transcriptPath, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw new Error(`${transcriptPath} is not a regular file`);
    const { size } = info;
    const length = Math.min(size, TRANSCRIPT_TAIL_BYTES);
    const buffer = Buffer.alloc(length);
    await handle.read(buffer, 0, length, size - length);
    let text = buffer.toString('utf8');
    if (length < size) text = text.slice(text.indexOf('\n') + 1);
    return currentTurnAssistantTexts(text).join('\n');
  } finally {
    await handle.close();
  }
}
