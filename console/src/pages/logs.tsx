/** Logs: calls and chats, filtered as the API allows; a call with its transcript and recording, a chat with its conversation. */
import { Route, Switch } from 'wouter-preact';
import { CallDetail } from './logs/call-detail';
import { ChatDetail } from './logs/chat-detail';
import { LogList } from './logs/log-list';
import './logs.css';

export default function LogsPage() {
  return (
    <Switch>
      <Route path="/call/:id">{(params) => <CallDetail id={params.id} />}</Route>
      <Route path="/chat/:id">{(params) => <ChatDetail id={params.id} />}</Route>
      <Route>
        <LogList />
      </Route>
    </Switch>
  );
}
