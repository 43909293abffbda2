/**
 * Faults a container runtime can inflict on a server in a container: paused (every process in it
 * frozen: connections stay open and nothing answers, as in a long GC pause or a network partition),
 * then resumed.
 */
import { getContainerRuntimeClient } from 'testcontainers';

/** Pauses the container for `ms`, then resumes it; resumes it even if the wait is interrupted. */
export async function pauseFor(containerId: string, ms: number): Promise<void> {
  const client = await getContainerRuntimeClient();
  const container = client.container.getById(containerId);
  await container.pause();
  try {
    await new Promise((resolve) => setTimeout(resolve, ms));
  } finally {
    await container.unpause();
  }
}
