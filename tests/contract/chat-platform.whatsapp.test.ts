/**
 * The WhatsApp Cloud API adapter passes the chat platform contract: messages go to a stand-in of the
 * Graph API, which posts its signed webhooks to the WhatsApp webhook routes; a course reported again
 * is the stand-in delivering every webhook of the message once more, as Meta retries.
 */
import { chatPlatformContract, type ChatFate } from './chat-platform.contract';
import { ORG, whatsappWorld } from '../integration/whatsapp/webhook-app';

/** The fate is the recipient's seventh digit from the end, so each message gets a number of its own. */
const FATES: readonly ChatFate[] = ['read', 'replied', 'failed'];
const fateOf = (to: string): ChatFate => FATES[Number(to.at(-7))] ?? 'read';

chatPlatformContract('whatsapp', async () => {
  const world = await whatsappWorld({ fateOf });
  let next = 0;
  return {
    platform: world.platform,
    events: world.events,
    commands: world.commands,
    reports: world.reports,
    organizationId: ORG,
    message: (fate: ChatFate) => ({
      messageId: `wa-${fate}-${++next}`,
      to: `+9198${FATES.indexOf(fate)}${String(next).padStart(6, '0')}`,
    }),
    async settled() {
      await world.standIn.idle();
      // Each webhook was taken (a refused one would leave a repeat changing nothing for the wrong reason).
      expect(world.standIn.webhooks.flatMap((w) => w.answers).filter((status) => status !== 200)).toEqual([]);
    },
    repeat: (_request, wamid) => world.standIn.replay(wamid),
    errorsSent: (_request, wamid) => world.standIn.errorsOf(wamid),
    close: () => world.close(),
  };
});
