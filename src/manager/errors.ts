// Errors of the manager that clients must tell apart (the server maps each code to an HTTP status in one place).
import { EXIT, UserError } from '../core/errors.js';

/** What went wrong, for clients: stable names, documented in the README. */
export type ManagerErrorCode = 'invalid_request' | 'not_found' | 'conflict' | 'not_running' | 'unavailable';

/** A request the manager refuses, with a code and a message meant for the user. */
export class ManagerError extends UserError {
  readonly code: ManagerErrorCode;
  constructor(code: ManagerErrorCode, message: string) {
    super(message, code === 'conflict' ? EXIT.locked : code === 'invalid_request' || code === 'not_found' ? EXIT.usage : EXIT.failure);
    this.name = 'ManagerError';
    this.code = code;
  }
}
