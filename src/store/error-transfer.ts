// Store errors across a thread boundary: the worker-thread store sends what a call threw as plain data, and the
// calling thread rebuilds an error of the same class (instanceof works: OwnershipLostError stops a run,
// StoreUnusableError explains the database), with its message, stack, fields and cause.
import { UserError } from '../core/errors.js';
import {
  AmbiguousRunIdError,
  NoStoreError,
  OwnershipLostError,
  RunBusyError,
  RunEndedError,
  RunNotFoundError,
  StoreError,
  StoreUnusableError,
  StoreVersionError,
} from './errors.js';

/** An error as plain, cloneable data. */
export interface SentError {
  name: string;
  message: string;
  stack?: string | undefined;
  /** Own fields (code, errcode, reason, runId, exitCode...), when they can be cloned. */
  fields: Record<string, unknown>;
  cause?: SentError | undefined;
}

/** The classes rebuilt by name; any other error comes back as an Error with the same name and fields. */
const CLASSES: Record<string, { prototype: Error }> = {
  StoreError,
  OwnershipLostError,
  RunBusyError,
  RunEndedError,
  StoreUnusableError,
  StoreVersionError,
  RunNotFoundError,
  AmbiguousRunIdError,
  NoStoreError,
  UserError,
};

function cloneable(value: unknown): boolean {
  return value === null || ['string', 'number', 'boolean', 'undefined'].includes(typeof value) || (Array.isArray(value) && value.every((v) => typeof v === 'string' || typeof v === 'number'));
}

/** `error` as data (depth-limited causes). */
export function sendError(error: unknown, depth = 0): SentError {
  if (!(error instanceof Error)) return { name: 'Error', message: String(error), fields: {} };
  const fields: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(error)) if (key !== 'cause' && cloneable(value)) fields[key] = value;
  const cause = depth < 3 && error.cause !== undefined ? sendError(error.cause, depth + 1) : undefined;
  return { name: error.name, message: error.message, stack: error.stack, fields, cause };
}

/** The error `sent` describes, of its class when known. */
export function receiveError(sent: SentError): Error {
  const proto = CLASSES[sent.name]?.prototype ?? Error.prototype;
  const error = Object.create(proto) as Error;
  Object.defineProperty(error, 'message', { value: sent.message, writable: true, configurable: true });
  Object.defineProperty(error, 'stack', { value: sent.stack, writable: true, configurable: true });
  Object.assign(error, sent.fields);
  if (proto === Error.prototype) error.name = sent.name;
  if (sent.cause !== undefined) Object.defineProperty(error, 'cause', { value: receiveError(sent.cause), writable: true, configurable: true });
  return error;
}
