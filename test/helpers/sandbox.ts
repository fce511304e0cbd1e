// Whether the sandbox tests run here: they skip only where bubblewrap is not installed (CI installs it); where it is
// installed but cannot work (user namespaces blocked), they run and fail with the reason `doctor` gives.
import { sandboxSupport } from '../../src/sandbox/probe.js';

const support = sandboxSupport();

/** True when bubblewrap is absent (the sandbox tests skip). */
export const NO_BWRAP = support.version === null;

/** The sandbox tests' title suffix: why they are skipped, or nothing. */
export const SKIP_REASON = NO_BWRAP ? ` (skipped: ${support.problem ?? ''})` : '';

/** What this machine supports (caps included). */
export const SANDBOX_SUPPORT = support;
