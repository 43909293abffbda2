/** One campaign: what it is, its customers (added one by one or from a file), and starting its calls and chats. */
import { Link, useLocation } from 'wouter-preact';
import { api } from '../../client/api';
import { BackLink, PendingPage } from '../../components/pending-page';
import { Page } from '../../components/ui';
import { useLoad } from '../../components/use-load';
import { AddCustomer } from './add-customer';
import { BulkAdd } from './bulk-add';
import { CampaignActions, StatusBadge } from './campaign-actions';
import { CustomerList, useCustomers } from './customer-list';
import { InitiateCalls, InitiateChats } from './initiate';
import { keyFieldOf, type Campaign } from './model';

export function CampaignDetail(props: { id: string }) {
  const [, navigate] = useLocation();
  const campaign = useLoad(() => api<{ data: Campaign }>('GET', `/campaigns/${props.id}`), [props.id]);
  const customers = useCustomers(props.id);
  const back = <BackLink href="/">← All campaigns</BackLink>;
  if (!campaign.data) return <PendingPage title="Campaign" back={back} loaded={campaign} what="the campaign" />;
  const c = campaign.data.data;
  const keyField = keyFieldOf(c.campaignType);
  return (
    <Page
      title={c.name}
      actions={
        <CampaignActions
          campaign={c}
          onChanged={(change) => (change === 'deleted' ? navigate('/', { replace: true }) : campaign.reload())}
        />
      }
    >
      {back}
      <dl class="facts">
        <div>
          <dt>Status</dt>
          <dd>
            <StatusBadge status={c.status} />
          </dd>
        </div>
        <div>
          <dt>Type</dt>
          <dd>{c.campaignType.toUpperCase()}</dd>
        </div>
        {c.language && (
          <div>
            <dt>Language</dt>
            <dd>{c.language}</dd>
          </div>
        )}
        {(c.startDate || c.endDate) && (
          <div>
            <dt>Runs</dt>
            <dd>
              {c.startDate ?? '…'} to {c.endDate ?? '…'}
            </dd>
          </div>
        )}
        <div>
          <dt>Window</dt>
          <dd>
            {c.startTime || c.endTime
              ? `${c.startTime ?? 'from the calling hours'} to ${c.endTime ?? 'their end'}`
              : 'the calling hours'}
            , {c.timezone ?? 'Asia/Kolkata'}
            {c.blackoutDates && c.blackoutDates.length > 0 && ` (not on ${c.blackoutDates.join(', ')})`}
          </dd>
        </div>
        <div>
          <dt>Pace</dt>
          <dd>
            {c.maxConcurrentCalls ?? 'default'} at once, {c.callsPerMinute ?? 'default'} a minute
            {c.retryPolicy &&
              `; retries after ${c.retryPolicy.delayMinutes ?? 60} min, ${c.retryPolicy.maxAttemptsPerDay ?? 3} a day, ${c.retryPolicy.maxAttemptsTotal ?? 6} in all`}
          </dd>
        </div>
        {c.progress && (
          <div>
            <dt>Calls</dt>
            <dd>
              {c.progress.phase}: {c.progress.calls.waiting} waiting, {c.progress.calls.inProgress} in progress,{' '}
              {c.progress.calls.done} done
            </dd>
          </div>
        )}
        <div>
          <dt>Logs</dt>
          <dd>
            <Link href={`~/console/logs?campaign_id=${encodeURIComponent(c.id)}`}>
              Calls and chats of this campaign
            </Link>
          </dd>
        </div>
      </dl>
      {c.description && <p class="description">{c.description}</p>}

      <section aria-labelledby="customers-title">
        <h2 id="customers-title">Customers</h2>
        <CustomerList customers={customers} keyField={keyField} />
        <div class="two-up">
          <AddCustomer campaignId={c.id} keyField={keyField} onAdded={customers.reload} />
          <BulkAdd campaignId={c.id} keyField={keyField} onAdded={customers.reload} />
        </div>
      </section>

      <section aria-labelledby="start-title">
        <h2 id="start-title">Start calls and chats</h2>
        <div class="two-up">
          <InitiateCalls
            campaignId={c.id}
            collection={keyField === 'loan_id'}
            agentId={c.agentId}
            dispositionGroupId={c.dispositionGroupId}
          />
          <InitiateChats campaignId={c.id} collection={keyField === 'loan_id'} />
        </div>
      </section>
    </Page>
  );
}
