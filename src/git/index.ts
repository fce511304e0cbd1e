// Public surface of the git module: checkpoints, rollback, worktrees.
export { git, GitError } from './git-exec.js';
export type { GitOutput, GitOptions } from './git-exec.js';
export { ensureExcluded, headSha, identityEnv, isGitRepo, repoRoot, uncommittedPaths, FALLBACK_IDENTITY } from './repo.js';
export { checkpoint, checkpointMessage, commitWorkspace } from './checkpoint.js';
export type { CheckpointResult } from './checkpoint.js';
export { clearStaleIndexLock, gitAliveIn, repoDirs } from './index-lock.js';
export type { RepoDirs } from './index-lock.js';
export { rollback, rollbackMessage, DirtyWorkspaceError, UnknownCommitError } from './rollback.js';
export type { RollbackOptions, RollbackResult } from './rollback.js';
export { createWorktree, defaultWorktreePath, removeWorktree, worktreeBranch } from './worktree.js';
export type { RunWorktree } from './worktree.js';
