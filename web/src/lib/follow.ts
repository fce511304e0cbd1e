// Follow mode of a live output view: it sticks to the bottom while output arrives, pauses as soon as the
// user scrolls up, counts what arrived since, and resumes when the user jumps (or scrolls) back down.

/** Where the scrollable view is. */
export interface ScrollPosition {
  scrollTop: number;
  scrollHeight: number;
  clientHeight: number;
}

/** Follow state: `unseen` counts items appended while not following. */
export interface FollowState {
  following: boolean;
  unseen: number;
  /** scrollTop of the last position seen, to tell a scroll up from layout changes. */
  lastTop: number;
}

/** Distance from the bottom (px) still counted as "at the bottom". */
export const BOTTOM_SLACK_PX = 24;

/** Initial state: following. */
export const FOLLOWING: FollowState = { following: true, unseen: 0, lastTop: 0 };

/** True when the view shows its last pixel (within the slack). */
export function atBottom(p: ScrollPosition): boolean {
  return p.scrollHeight - p.scrollTop - p.clientHeight <= BOTTOM_SLACK_PX;
}

/**
 * After a scroll event. Moving up away from the bottom pauses following; reaching the bottom resumes it.
 * A scroll that is not upwards (content growing, the view resizing) never pauses.
 */
export function onScroll(state: FollowState, p: ScrollPosition): FollowState {
  if (atBottom(p)) return state.following && state.unseen === 0 && state.lastTop === p.scrollTop ? state : { following: true, unseen: 0, lastTop: p.scrollTop };
  if (p.scrollTop < state.lastTop) return { following: false, unseen: state.following ? 0 : state.unseen, lastTop: p.scrollTop };
  return state.lastTop === p.scrollTop ? state : { ...state, lastTop: p.scrollTop };
}

/** After `count` items were appended: while following nothing changes (the view scrolls), otherwise they are counted. */
export function onAppend(state: FollowState, count: number): FollowState {
  if (state.following || count <= 0) return state;
  return { ...state, unseen: state.unseen + count };
}

/** The user asked to jump back to the live end. */
export function onJump(state: FollowState): FollowState {
  return { ...state, following: true, unseen: 0 };
}

/** The user moved away on purpose (search hit, opening an item): stop following without a scroll event. */
export function onLeave(state: FollowState): FollowState {
  return state.following ? { ...state, following: false, unseen: 0 } : state;
}
