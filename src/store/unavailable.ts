// The error of a networked store that cannot reach its database (kept apart from the driver, so that
// catching it does not load the PostgreSQL driver).
import { StoreError } from './errors.js';

/** The database cannot be reached (refused, reset, shut down, too many connections): retry later. */
export class StoreUnavailableError extends StoreError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StoreUnavailableError';
  }
}
