import type { AnyProjection } from '../../application/projection';

/** The read models of the chat feature. */
export const chatsProjections: readonly AnyProjection[] = [];
