import { onMounted, onUnmounted, ref, shallowRef, type Ref, type ShallowRef } from "vue";
import type { Api, Turn } from "./api.ts";
import { appendText, EMPTY_CHAT, mergeTurns, type ChatState } from "./chat-state.ts";
import { formErrorsOf, NO_ERRORS, type FormErrors } from "./form-errors.ts";
import { connectProjectEvents, type StreamState } from "./project-events.ts";

export interface ProjectChat {
  readonly state: ShallowRef<ChatState>;
  readonly stream: Ref<StreamState>;
  /** The turn list was read at least once: an empty list then means no messages yet. */
  readonly loaded: Ref<boolean>;
  readonly loadError: Ref<FormErrors>;
  /** A turn an action of this tab got back (sent, stopped, retried), merged at once. */
  accept(turn: Turn): void;
}

/**
 * One project's live conversation for a component's lifetime: the project's event stream,
 * and the turn list read after every (re)connection, merged by id (chat-state.ts). Every tab
 * of every member holds the same conversation this way; the stream brings each change.
 */
export function useProjectChat(
  api: Api,
  projectId: number,
  on: {
    /** The roster changed (`members.changed`): reload it, and see whether you are still in. */
    readonly membersChanged: () => void;
    /** The service refused the stream: see whether access to the project is gone. */
    readonly refused: () => void;
    /** The stream is (again) live: what failed to load while the service was away can load. */
    readonly ready: () => void;
  },
): ProjectChat {
  const state = shallowRef<ChatState>(EMPTY_CHAT);
  const stream = ref<StreamState>("connecting");
  const loaded = ref(false);
  const loadError = ref<FormErrors>(NO_ERRORS);

  async function loadTurns(): Promise<void> {
    try {
      state.value = mergeTurns(state.value, await api.turns(projectId));
      loaded.value = true;
      loadError.value = NO_ERRORS;
    } catch (error) {
      // The last known conversation stays on screen; the banner says why it may be behind.
      loadError.value = formErrorsOf(error, []);
    }
  }

  let disconnect: (() => void) | null = null;
  onMounted(() => {
    // Read at once too, so the conversation shows before the stream's first frame.
    void loadTurns();
    disconnect = connectProjectEvents(projectId, {
      ready: () => {
        void loadTurns();
        on.ready();
      },
      turnChanged: (turn) => {
        state.value = mergeTurns(state.value, [turn]);
      },
      turnText: (turnId, text) => {
        state.value = appendText(state.value, turnId, text);
      },
      membersChanged: on.membersChanged,
      state: (now) => {
        stream.value = now;
      },
      refused: on.refused,
    });
  });
  onUnmounted(() => disconnect?.());

  return {
    state,
    stream,
    loaded,
    loadError,
    accept(turn) {
      state.value = mergeTurns(state.value, [turn]);
    },
  };
}
