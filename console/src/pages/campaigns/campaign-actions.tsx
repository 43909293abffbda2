/** Pausing, resuming and deleting a campaign, with the API's refusal shown beside the buttons. */
import { api } from '../../client/api';
import { ConfirmButton } from '../../components/confirm-button';
import { Problem } from '../../components/problem';
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
  const remove = useAction(async () => {
    await api('DELETE', `/campaigns/${campaign.id}`);
    props.onChanged('deleted');
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
      <ConfirmButton
        label="Delete"
        question={`Delete “${campaign.name}”? Its customers and history are kept, but it cannot be used again.`}
        busy={remove.busy}
        onConfirm={() => void remove.run()}
      />
      <Problem error={toggle.error ?? remove.error} />
    </div>
  );
}
