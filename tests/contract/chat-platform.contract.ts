/**
 * What every chat platform adapter must do, whatever carries the messages: a message handed to it by
 * the chat dispatcher is accepted with the platform's id and its reports move it through its statuses
 * to a final one; a failed delivery keeps the error object the platform sent, as it sent it; a
 * platform reporting a message's course again (a retry) changes nothing; and a customer's reply is
 * recorded once. The reports are observed as the service records them: through `ChatPlatformReports`
 * over a command handler on a memory event store, read from the chat's stream.
 */
import { chatDispatcher, type ChatDispatchLookups } from '../../application/chats/chat-dispatcher';
import type { ChatPlatformReports } from '../../application/chats/chat-platform-reports';
import { chatStreamId } from '../../application/chats/chat-sending';
import { CommandHandler } from '../../application/command-handler';
import type { ChatPlatform, ChatSendRequest } from '../../application/ports/chat-platform';
import type { EventStore, RecordedEvent } from '../../application/ports/event-store';
import { chatDecider } from '../../domain/chats/chat';
import { chatTarget } from '../support/chats';

export type ChatFate = 'read' | 'replied' | 'failed';

export type ChatPlatformHarness = {
  platform: ChatPlatform;
  events: EventStore;
  commands: CommandHandler;
  reports: ChatPlatformReports;
  /** The organization the platform carries messages for. */
  organizationId: string;
  /** A new message (its id and recipient) whose course on this platform will be `fate`. */
  message(fate: ChatFate): { messageId: string; to: string };
  /** Resolves once the platform has reported all it will about the messages under way. */
  settled(): Promise<void>;
  /** The platform reports the course of a message again, as a retrying platform does. */
  repeat(request: ChatSendRequest, platformMsgId: string): Promise<void>;
  /** The errors the platform sent when it failed a message, as it sent them. */
  errorsSent(request: ChatSendRequest, platformMsgId: string): unknown[];
  close(): Promise<void>;
};

const lookups: ChatDispatchLookups = {
  organizationType: async () => 'collection',
  customer: async (_org, _campaign, key) => ({ loan_id: key, first_name: 'Asha', last_name: 'Rao' }),
  agent: async () => null,
  dispositions: async () => [],
};

const STATUS_EVENTS = ['ChatSent', 'ChatDelivered', 'ChatRead', 'ChatFailed'];

export function chatPlatformContract(name: string, setUp: () => Promise<ChatPlatformHarness>): void {
  describe(`chat platform contract: ${name}`, () => {
    let h: ChatPlatformHarness;
    /** What the dispatcher handed the platform and what it answered, by message id. */
    let sent: Map<string, { request: ChatSendRequest; platformMsgId: string }>;

    beforeEach(async () => {
      h = await setUp();
      sent = new Map();
    });
    afterEach(() => h.close());

    const stream = (messageId: string): Promise<RecordedEvent[]> => h.events.readStream(chatStreamId(messageId));
    const typesOf = async (messageId: string) => (await stream(messageId)).map((e) => e.type);

    /** A message requested and handed to the platform by the chat dispatcher, played to its end. */
    async function send(fate: ChatFate): Promise<string> {
      const { messageId, to } = h.message(fate);
      const organizationId = h.organizationId;
      await h.commands.handle(
        chatDecider,
        chatStreamId(messageId),
        { type: 'RequestChat', messageId, at: new Date().toISOString(), ...chatTarget({ organizationId, to }) },
        { organizationId, actor: 'tester', requestId: `r-${messageId}` },
      );
      const platform: ChatPlatform = {
        alias: h.platform.alias,
        async send(request) {
          const answer = await h.platform.send(request);
          sent.set(request.messageId, { request, platformMsgId: answer.platformMsgId });
          return answer;
        },
      };
      const dispatcher = chatDispatcher({
        commands: h.commands,
        platform,
        reports: h.reports,
        lookups,
        now: () => new Date(),
        player: 'contract',
      });
      await dispatcher.handle((await stream(messageId))[0]!);
      await h.settled();
      return messageId;
    }

    async function repeated(messageId: string): Promise<void> {
      const { request, platformMsgId } = sent.get(messageId)!;
      await h.repeat(request, platformMsgId);
      await h.settled();
    }

    it('accepts a sent message with its platform id, and moves it through its statuses to a final one', async () => {
      const messageId = await send('read');
      const events = await stream(messageId);
      const accepted = events.find((e) => e.type === 'ChatAccepted');
      expect(accepted?.data).toMatchObject({ platformMsgId: sent.get(messageId)!.platformMsgId });
      expect(sent.get(messageId)!.platformMsgId).not.toBe('');
      expect(events.map((e) => e.type).filter((t) => STATUS_EVENTS.includes(t))).toEqual([
        'ChatSent',
        'ChatDelivered',
        'ChatRead',
      ]);
      const { state } = await h.commands.load(chatDecider, chatStreamId(messageId));
      expect(state.status).toBe('Read');
    });

    it('keeps the error object of a failed delivery as the platform sent it, and ends the chat', async () => {
      const messageId = await send('failed');
      const events = await stream(messageId);
      const { request, platformMsgId } = sent.get(messageId)!;
      const failed = events.filter((e) => e.type === 'ChatFailed');
      expect(failed).toHaveLength(1);
      const errors = (failed[0]!.data as { errors: unknown[] }).errors;
      expect(errors.length).toBeGreaterThan(0);
      expect(errors).toEqual(h.errorsSent(request, platformMsgId));
      expect(events.filter((e) => e.type === 'ChatEnded').map((e) => (e.data as { status: string }).status)).toEqual([
        'Failed',
      ]);
    });

    it('records a customer reply once', async () => {
      const messageId = await send('replied');
      const replies = async () =>
        (await stream(messageId)).filter(
          (e) => e.type === 'ChatMessageAdded' && (e.data as { role: string }).role === 'user',
        );
      expect(await replies()).toHaveLength(1);
      expect((await replies())[0]!.data).toMatchObject({ content: expect.stringMatching(/\S/) });
      await repeated(messageId);
      expect(await replies()).toHaveLength(1);
    });

    it('changes nothing when the platform reports a course again', async () => {
      const ids = [await send('read'), await send('failed'), await send('replied')];
      const before = await Promise.all(ids.map(typesOf));
      for (const id of ids) await repeated(id);
      expect(await Promise.all(ids.map(typesOf))).toEqual(before);
    });
  });
}
