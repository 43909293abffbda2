/**
 * One chat: its status, its conversation as the customer saw it, and the platform's delivery errors
 * (code, title, message, details, and the platform's reference for the code).
 */
import { api } from '../../client/api';
import { BackLink, PendingPage } from '../../components/pending-page';
import { Page } from '../../components/ui';
import { useLoad } from '../../components/use-load';
import { Fact } from './fact';
import { documentationLink, keyOf, statusClass, when, type ChatDetail as Chat } from './model';

const BACK = <BackLink href="/">← All logs</BackLink>;

export function ChatDetail(props: { id: string }) {
  const chat = useLoad(
    () => api<{ data: Chat }>('GET', `/communication/chat/${encodeURIComponent(props.id)}`),
    [props.id],
  );
  if (!chat.data) return <PendingPage title="Chat" back={BACK} loaded={chat} what="the chat" />;
  const c = chat.data.data;
  return (
    <Page
      title={`Chat with ${c.name || c.to}`}
      actions={
        <button type="button" class="secondary" onClick={chat.reload}>
          Refresh
        </button>
      }
    >
      {BACK}
      <dl class="log-facts">
        <Fact label="Status">
          <span class={statusClass(c.status)}>{c.status}</span>
        </Fact>
        <Fact label="Customer">
          {c.name} {keyOf(c) && <code>{keyOf(c)}</code>}
        </Fact>
        <Fact label="To">{c.to}</Fact>
        <Fact label="Platform message id">
          <code>{c.platform_msg_id}</code>
        </Fact>
      </dl>
      <div class="call-media">
        <section aria-labelledby="conversation-title">
          <h2 id="conversation-title">Conversation</h2>
          {c.conversation.length === 0 ? (
            <p class="empty">No message yet.</p>
          ) : (
            <ol class="transcript">
              {c.conversation.map((m, i) => (
                <li key={i} class={m.role === 'assistant' ? 'turn turn-agent' : 'turn turn-customer'}>
                  <span class="speaker">
                    {m.role === 'assistant' ? 'Agent' : 'Customer'}{' '}
                    <time dateTime={m.timestamp}>{when(m.timestamp)}</time>
                  </span>
                  <span class="said">{m.content}</span>
                </li>
              ))}
            </ol>
          )}
        </section>
        <section aria-labelledby="delivery-title">
          <h2 id="delivery-title">Delivery</h2>
          {c.errors.length === 0 ? (
            <p class="notice">No delivery error: the message is {c.status.toLowerCase()}.</p>
          ) : (
            <ul class="delivery-errors">
              {c.errors.map((e, i) => (
                <li key={i} class="error">
                  <strong>
                    {e.code} {e.title}
                  </strong>
                  <p>{e.message}</p>
                  {e.error_data?.details && <p>{e.error_data.details}</p>}
                  <ErrorReference code={e.code} href={e.href} />
                </li>
              ))}
            </ul>
          )}
        </section>
      </div>
    </Page>
  );
}

/** The platform's page about an error: a link when it is an https address, else its text. */
function ErrorReference(props: { code: number; href: string | undefined }) {
  const link = documentationLink(props.href);
  if (link)
    return (
      <a href={link} target="_blank" rel="noreferrer noopener">
        What error {props.code} means
      </a>
    );
  return props.href ? <p class="muted">{props.href}</p> : null;
}
