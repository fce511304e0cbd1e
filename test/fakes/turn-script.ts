// Scripted model turns for the fake model servers: which answer a request gets, chosen per conversation.

/** One tool call the fake model asks the agent to make. */
export interface ToolCallSpec {
  name: string;
  args: Record<string, unknown>;
  /** Call id; generated when absent. */
  id?: string;
}

/** An HTTP error the fake model answers with. */
export interface ErrorSpec {
  status: number;
  message: string;
}

/** One model turn: text and/or tool calls, optional usage, delay, and errors served before it. */
export interface Turn {
  text?: string;
  toolCalls?: ToolCallSpec[];
  /** Token usage reported in the final chunk. Defaults to 100 in / 10 out. */
  usage?: { input: number; output: number };
  /** Milliseconds to wait before answering. */
  delayMs?: number;
  /**
   * Errors served, one per request, before this turn is answered (retries of the same request). A first
   * turn with errors only ends its conversation after the last error: list exactly the CLI's attempts.
   */
  failFirst?: ErrorSpec[];
}

/** One conversation (= one agent process = one loop iteration): turn k answers the request holding k model turns. */
export type Conversation = Turn[];

/** What the script decided for one request. */
export type ScriptAnswer =
  | { kind: 'turn'; conversation: number; turn: number; reply: Turn }
  | { kind: 'error'; conversation: number; turn: number; error: ErrorSpec }
  | { kind: 'exhausted'; conversation: number; turn: number };

/** The default usage when a turn gives none. */
export const DEFAULT_USAGE = { input: 100, output: 10 } as const;

/**
 * Walks a list of conversations. A request without model turns starts the next conversation,
 * unless the current one's first turn still has errors to serve or was never answered (a retry).
 */
export class TurnScript {
  private readonly conversations: readonly Conversation[];
  private current = -1;
  /** Per turn index of the current conversation: how many requests it has seen. */
  private attempts = new Map<number, number>();

  constructor(conversations: readonly Conversation[]) {
    this.conversations = conversations;
  }

  /** Chooses the answer for a request that carries `modelTurns` earlier model turns. */
  next(modelTurns: number): ScriptAnswer {
    if (modelTurns === 0 && !this.firstTurnPending()) {
      this.current += 1;
      this.attempts = new Map();
    }
    const conversation = Math.max(this.current, 0);
    const turns = this.conversations[conversation];
    const turn = turns?.[modelTurns];
    if (turns === undefined || turn === undefined) return { kind: 'exhausted', conversation, turn: modelTurns };
    const attempt = this.attempts.get(modelTurns) ?? 0;
    this.attempts.set(modelTurns, attempt + 1);
    const error = turn.failFirst?.[attempt];
    if (error !== undefined) return { kind: 'error', conversation, turn: modelTurns, error };
    return { kind: 'turn', conversation, turn: modelTurns, reply: turn };
  }

  /**
   * True while the current conversation's first turn still expects a retry: it has errors left to serve,
   * or all were served and it has an answer. A turn of errors only ends its conversation after the last
   * one (give it exactly as many errors as the CLI makes attempts).
   */
  private firstTurnPending(): boolean {
    if (this.current < 0) return false;
    const first = this.conversations[this.current]?.[0];
    if (first === undefined) return false;
    const attempt = this.attempts.get(0) ?? 0;
    const errors = first.failFirst?.length ?? 0;
    const hasAnswer = first.text !== undefined || (first.toolCalls?.length ?? 0) > 0;
    return attempt > 0 && (attempt < errors || (attempt === errors && hasAnswer));
  }
}

/** Splits text into a few chunks so that clients see several deltas. */
export function splitDeltas(text: string, size = 12): string[] {
  const chunks: string[] = [];
  for (let i = 0; i < text.length; i += size) chunks.push(text.slice(i, i + size));
  return chunks.length > 0 ? chunks : [''];
}
