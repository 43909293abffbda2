/**
 * Campaigns: the list (with the creation form), and one campaign with its customers, where customers
 * are added one at a time or from a CSV file and calls and chats are started.
 */
import { Route, Switch } from 'wouter-preact';
import { CampaignDetail } from './campaigns/campaign-detail';
import { CampaignList } from './campaigns/campaign-list';
import './campaigns.css';

export default function CampaignsPage() {
  return (
    <Switch>
      <Route path="/:id">{(params) => <CampaignDetail id={params.id} />}</Route>
      <Route>
        <CampaignList />
      </Route>
    </Switch>
  );
}
