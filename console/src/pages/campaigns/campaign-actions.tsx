/** Pausing, resuming and deleting a campaign, with the API's refusal shown where it was asked. */
import { api } from '../../client/api';
import { DeleteButton } from '../../components/delete-button';
import { ErrorNote } from '../../components/ui';
import { useAction } from '../../components/use-load';
import type { Campaign } from './model';

export function StatusBadge(props: { status: Campaign['status'] }) {
  return <span class={`badge badge-${props.status}`}>{props.status === 'active' ? 'Active' : 'Paused'}</span>;
}

export function CampaignActions(props: { campaign: Campaign; onChanged: (change: 'status' | 'deleted') => void }) {
  const { campaign } = props;
  const toggle = useAction(async () => {
    await api('PATCH', `/campaigns/${campaign.status === 'active' ? 'pause' : 'resume'}/${campaign.id}`);
    props.onChanged('status');
  });
  return (
    <div class="row-actions">
      <button
        type="button"
        class="secondary"
        disabled={toggle.busy}
        aria-label={`${campaign.status === 'active' ? 'Pause' : 'Resume'} ${campaign.name}`}
        onClick={() => void toggle.run()}
      >
        {campaign.status === 'active' ? 'Pause' : 'Resume'}
      </button>
      <DeleteButton
        what={campaign.name}
        consequence="Its customers and history are kept, but it cannot be used again."
        onDelete={() => api('DELETE', `/campaigns/${campaign.id}`)}
        onDeleted={() => props.onChanged('deleted')}
      />
      <ErrorNote error={toggle.error} />
    </div>
  );
}
