// A checkpoint of the tree change tracking just wrote (the finished iteration's after-tree): its commit object written
// and HEAD moved in process, exactly as `git commit-tree` + `git update-ref` would (commit-object.ts, ref-update.ts; by
// those two gits whenever the repository or the identity is one they could treat otherwise), then the run's private
// index (whose entries are that tree) put in place of the real index, which leaves the state `git add` + `git commit
// -- <workspace>` would. Taken only when that is provably the same as the plumbing checkpoint (checkpoint.ts): the real
// index unchanged since the private one was seeded from it or installed over it, HEAD where the last checkpoint left
// it, nothing changed outside the directory or under its .ringmaster/. Anything else answers null and the caller
// takes the full path.
import type { CheckpointResult } from './checkpoint.js';
import { git } from './git-exec.js';
import { lockIndex } from './index-lock-file.js';
import { commitIdentity, commitsInProcess, plainText, writeCommit, type CommitIdentity } from './commit-object.js';
import type { GitConfig } from './git-config.js';
import { reflogEntry, refStoreFor, updateHead } from './ref-update.js';
import { identityFor } from './repo.js';
import { indexStamp, type WorkIndex } from './work-index.js';

async function readHead(dir: string): Promise<{ commit: string; tree: string } | null> {
  const out = await git(dir, ['rev-parse', 'HEAD^{commit}', 'HEAD^{tree}'], { okExitCodes: [128] });
  if (out.exitCode !== 0) return null;
  const [commit = '', tree = ''] = out.stdout.split('\n');
  return { commit, tree };
}

/** True when every path that differs between the two trees is under the directory and outside its .ringmaster/. */
async function onlyUnder(index: WorkIndex, from: string, to: string): Promise<boolean> {
  const out = await git(index.dir, ['diff-tree', '-r', '-z', '--name-only', '--no-renames', from, to]);
  const own = `${index.prefix}.ringmaster/`;
  return out.stdout.split('\0').every((p) => p === '' || (p.startsWith(index.prefix) && !p.startsWith(own)));
}

/** Commits the tree `index` holds as a checkpoint with `message`; null when this is not the fast case. */
export async function checkpointSettled(index: WorkIndex, message: string): Promise<CheckpointResult | null> {
  const settled = index.settled;
  if (settled === null || settled.own || index.realStamp === null) return null;
  const [head, config] = await Promise.all([index.head ?? readHead(index.dir), index.config()]);
  if (head === null) return null;
  if (settled.tree === head.tree) return { committed: false, sha: head.commit, message };
  // From the tree before the iteration, the iteration's own diff says it; otherwise git does.
  if (settled.before !== head.tree && !(await onlyUnder(index, head.tree, settled.tree))) return null;
  // Under index.lock no git writes the real index: it is compared, and replaced, while the lock is held.
  const lock = await lockIndex(index.real);
  try {
    if ((await indexStamp(index.real)) !== index.realStamp) {
      index.stale = true;
      index.head = null;
      await lock.release();
      return null;
    }
    const commit = await commitAndMove(index, config, head.commit, settled.tree, message);
    // HEAD moved meanwhile (a commit without the index, e.g. `git commit-tree` + `update-ref`): the full path decides.
    if (commit === null) {
      index.head = null;
      await lock.release();
      return null;
    }
    const data = index.indexData();
    await (data === null ? lock.commit(index.work) : lock.commitData(data));
    index.realStamp = await indexStamp(index.real);
    index.head = { commit, tree: settled.tree };
    return { committed: true, sha: commit, message };
  } catch (error) {
    await lock.release();
    throw error;
  }
}

/**
 * Commits `tree` on `parent` and moves HEAD from `parent` to it, as `git commit-tree` and `git update-ref` do: in
 * process when git would write exactly that, else by those gits. Null when HEAD is no longer at `parent` (or a lock
 * git would fail on is held).
 */
async function commitAndMove(index: WorkIndex, config: GitConfig, parent: string, tree: string, message: string): Promise<string | null> {
  const identityEnv = identityFor((key) => config.has(key));
  const logMessage = `commit: ${message}`;
  // Signing stays off (the git path passes commit.gpgsign=false); a message git's reflog would rewrite goes to git.
  const plain = commitsInProcess(config) && plainText(message) && ![...message].some((c) => c < ' ' || c === '\u007f');
  const identity = plain ? commitIdentity({ ...process.env, ...identityEnv }, config, new Date()) : null;
  const store = identity === null ? null : refStoreFor(config, index.gitDir, index.commonDir);
  let commit: string | null = null;
  if (identity !== null && store !== null) {
    commit = writeCommitOrNull(index.objects, tree, parent, identity, message);
    const moved = commit === null ? 'unsupported' : updateHead(store, parent, commit, reflogEntry(identity.committer, logMessage));
    if (commit !== null && moved !== 'unsupported') return moved === 'updated' ? commit : null;
  }
  commit ??= (await git(index.dir, ['-c', 'commit.gpgsign=false', 'commit-tree', tree, '-p', parent, '-m', message], { env: identityEnv })).stdout.trim();
  const moved = await git(index.dir, ['update-ref', '-m', logMessage, 'HEAD', commit, parent], { okExitCodes: [128] });
  return moved.exitCode === 0 ? commit : null;
}

/** The commit written in process; null when that failed (a permission, a full disk): git writes it, and says why. */
function writeCommitOrNull(objects: string, tree: string, parent: string, identity: CommitIdentity, message: string): string | null {
  try {
    return writeCommit(objects, tree, parent, identity, message);
  } catch {
    return null;
  }
}
