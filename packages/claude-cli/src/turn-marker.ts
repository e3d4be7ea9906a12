/**
 * The environment variable that marks a turn's processes, in both apps (issue 50): its value
 * is the id of the turn that started the process, and every descendant inherits it, so the
 * leftovers of a killed service are found by it (`killLeftoverProcesses`, the orphan watchdog).
 * The backend always used this name; the daemon used `TICLAWK_TURN_ID` up to its 0.2.x, which
 * remains one of the values an agent reads (the daemon's agent contract), no longer the marker.
 */
export const TURN_MARKER_VARIABLE = "TALKIDE_TURN_ID";

/**
 * Every name a turn's leftover may carry: the marker, and until the daemon's 0.4.0 the name a
 * daemon of 0.2.x marked its processes with, so that the processes such a daemon started before
 * an upgrade (then killed, or stopped on a machine the new release now recovers) are still found.
 */
export const TURN_MARKER_VARIABLES: readonly string[] = [TURN_MARKER_VARIABLE, "TICLAWK_TURN_ID"];
