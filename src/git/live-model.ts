// The live tree's model of an index: its entries as a tree of directory nodes, each with the id of its git tree
// (written again only when something under it changed), and the changes since the last tree was written (so the diff
// of one snapshot against the one before needs no tree read back).
import type { FileChange } from './changes.js';
import { entryMode, serializeIndex, type IndexEntry } from './index-file.js';
import { writeLooseObject } from './loose-object.js';

interface FileNode {
  kind: 'file';
  entry: IndexEntry;
}
export interface DirNode {
  kind: 'dir';
  children: Map<string, Node>;
  /** Its tree id; null: no file under it (no tree); undefined: to be written. */
  oid: Buffer | null | undefined;
  /** Its children's names in git's tree order (undefined: to be sorted). */
  order: string[] | undefined;
}
type Node = FileNode | DirNode;

/** Two trees the model wrote one after the other, and what changed between them (paths from the top). */
interface LastDiff {
  from: string;
  to: string;
  changes: FileChange[];
}

const EMPTY_TREE = Buffer.from('4b825dc642cb6eb9a060e54bf8d69288fbee4904', 'hex');
const newDir = (): DirNode => ({ kind: 'dir', children: new Map(), oid: undefined, order: undefined });
const treeKey = (name: string, node: Node): Buffer => Buffer.from(node.kind === 'dir' ? `${name}/` : name, 'utf8');
export const parentOf = (path: string): string => path.slice(0, Math.max(0, path.lastIndexOf('/')));
export const nameOf = (path: string): string => path.slice(path.lastIndexOf('/') + 1);
const sameContent = (a: IndexEntry | null, b: IndexEntry | null): boolean =>
  a === null || b === null ? a === b : a.oid.equals(b.oid) && entryMode(a) === entryMode(b);

export class IndexModel {
  private readonly root = newDir();
  /** Each file path changed since the last tree was written, with its entry then (null: there was none). */
  private pending = new Map<string, IndexEntry | null>();
  private lastTree: string | null = null;
  private lastDiff: LastDiff | null = null;

  constructor(private readonly objects: string) {}

  lookup(path: string): Node | undefined {
    let node: Node | undefined = this.root;
    for (const part of path === '' ? [] : path.split('/')) node = node?.kind === 'dir' ? node.children.get(part) : undefined;
    return node;
  }

  /** The file entry at `path`, or null. */
  entry(path: string): IndexEntry | null {
    const node = this.lookup(path);
    return node?.kind === 'file' ? node.entry : null;
  }

  /** Loads an index's entries (in its order) into an empty model: no change is noted, no tree is written yet. */
  load(entries: Iterable<[string, IndexEntry]>): void {
    const dirs = new Map<string, DirNode>([['', this.root]]);
    for (const [path, entry] of entries) {
      const parent = parentOf(path);
      let dir = dirs.get(parent);
      if (dir === undefined) {
        dir = this.dirAt(parent);
        dirs.set(parent, dir);
      }
      dir.children.set(nameOf(path), { kind: 'file', entry });
      dir.order = undefined;
    }
  }

  /** Sets the file at `path` (its directories created); trees above it are written again if its content changed. */
  setFile(path: string, entry: IndexEntry): void {
    const old = this.lookup(path);
    if (old?.kind === 'file' && sameContent(old.entry, entry)) {
      old.entry = entry;
      return;
    }
    if (old?.kind === 'dir') this.remove(path);
    this.note(path, old?.kind === 'file' ? old.entry : null);
    const into = this.dirAt(parentOf(path));
    if (old?.kind !== 'file') into.order = undefined;
    into.children.set(nameOf(path), { kind: 'file', entry });
  }

  /** Removes the file or directory at `path`; answers whether it was a directory. */
  remove(path: string): boolean {
    const parentNode = this.lookup(parentOf(path));
    const node = parentNode?.kind === 'dir' ? parentNode.children.get(nameOf(path)) : undefined;
    if (node === undefined) return false;
    for (const [file, entry] of node.kind === 'file' ? [[path, node.entry] as const] : this.entries(node, `${path}/`)) this.note(file, entry);
    const parent = this.dirAt(parentOf(path));
    parent.children.delete(nameOf(path));
    parent.order = undefined;
    return node.kind === 'dir';
  }

  /** Writes the trees that changed; answers the root tree's id. */
  writeTree(): string {
    const tree = (this.treeOf(this.root) ?? writeLooseObject(this.objects, 'tree', Buffer.alloc(0), EMPTY_TREE)).toString('hex');
    const changes: FileChange[] = [];
    // The first tree: there is nothing to diff it against.
    for (const [path, before] of this.lastTree === null ? [] : this.pending) {
      const now = this.entry(path);
      if (sameContent(before, now)) continue;
      changes.push({ path, change: before === null ? 'added' : now === null ? 'deleted' : 'modified' });
    }
    changes.sort((a, b) => Buffer.compare(Buffer.from(a.path, 'utf8'), Buffer.from(b.path, 'utf8')));
    this.lastDiff = this.lastTree === null ? null : { from: this.lastTree, to: tree, changes };
    this.lastTree = tree;
    this.pending = new Map();
    return tree;
  }

  /** Every file entry, with its path from the top. */
  files(): Iterable<[string, IndexEntry]> {
    return this.entries(this.root, '');
  }

  /** The changes between two trees if they are the last two this model wrote (paths from the top), else null. */
  diff(from: string, to: string): FileChange[] | null {
    if (from === to && to === this.lastTree) return [];
    return this.lastDiff !== null && this.lastDiff.from === from && this.lastDiff.to === to ? this.lastDiff.changes : null;
  }

  /** The index file's content for what the model holds. */
  indexData(): Buffer {
    return serializeIndex(this.entries(this.root, ''));
  }

  private note(path: string, before: IndexEntry | null): void {
    if (!this.pending.has(path)) this.pending.set(path, before);
  }

  /** The directory node at `path`, created with its parents; every tree on the way is to be written again. */
  private dirAt(path: string): DirNode {
    let node = this.root;
    node.oid = undefined;
    for (const part of path === '' ? [] : path.split('/')) {
      let next = node.children.get(part);
      if (next?.kind !== 'dir') {
        next = newDir();
        node.children.set(part, next);
        node.order = undefined;
      }
      node = next;
      node.oid = undefined;
    }
    return node;
  }

  private order(node: DirNode): string[] {
    node.order ??= [...node.children.entries()]
      .map(([name, child]) => ({ name, key: treeKey(name, child) }))
      .sort((a, b) => Buffer.compare(a.key, b.key))
      .map((e) => e.name);
    return node.order;
  }

  private treeOf(node: DirNode): Buffer | null {
    if (node.oid !== undefined) return node.oid;
    const parts: Buffer[] = [];
    for (const name of this.order(node)) {
      const child = node.children.get(name) as Node;
      const oid = child.kind === 'file' ? child.entry.oid : this.treeOf(child);
      if (oid === null) continue;
      const mode = child.kind === 'file' ? entryMode(child.entry).toString(8) : '40000';
      parts.push(Buffer.from(`${mode} ${name}\0`, 'utf8'), oid);
    }
    node.oid = parts.length === 0 ? null : writeLooseObject(this.objects, 'tree', Buffer.concat(parts));
    return node.oid;
  }

  private *entries(node: DirNode, base: string): Generator<[string, IndexEntry]> {
    for (const name of this.order(node)) {
      const child = node.children.get(name) as Node;
      if (child.kind === 'file') yield [`${base}${name}`, child.entry];
      else yield* this.entries(child, `${base}${name}/`);
    }
  }
}
