/**
 * A button whose action asks the reviewer for a reason first (a takedown's, a block's): Strapi's
 * modal with a required text, sent only when it holds something, at most TAKEDOWN_REASON_MAX
 * characters (the server checks it again).
 */
import { useState, type ReactNode } from 'react';
import { Button, Field, Modal, Textarea, type ButtonProps } from '@strapi/design-system';
import { TAKEDOWN_REASON_MAX } from '../../../../shared/contracts/review';
import { useMessage } from '../../hooks/useMessage';

interface Props {
  children: ReactNode;
  title: string;
  /** What the action does, above the field. */
  question: string;
  confirm: string;
  onConfirm: (reason: string) => Promise<void>;
  variant?: ButtonProps['variant'];
  testId: string;
}

export function ReasonButton({ children, title, question, confirm, onConfirm, variant = 'danger-light', testId }: Props) {
  const t = useMessage();
  const [open, setOpen] = useState(false);
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const trimmed = reason.trim();
  return (
    <Modal.Root
      open={open}
      onOpenChange={(next: boolean) => {
        setOpen(next);
        if (!next) setReason('');
      }}
    >
      <Modal.Trigger>
        <Button variant={variant} size="S" data-testid={testId}>
          {children}
        </Button>
      </Modal.Trigger>
      <Modal.Content>
        <Modal.Header>
          <Modal.Title>{title}</Modal.Title>
        </Modal.Header>
        <Modal.Body>
          <Field.Root name="reason" required hint={question}>
            <Field.Label>{t('review.reason')}</Field.Label>
            <Textarea
              value={reason}
              maxLength={TAKEDOWN_REASON_MAX}
              onChange={(event: React.ChangeEvent<HTMLTextAreaElement>) => setReason(event.target.value)}
              data-testid="image-api-review-reason"
            />
            <Field.Hint />
          </Field.Root>
        </Modal.Body>
        <Modal.Footer>
          <Modal.Close>
            <Button variant="tertiary">{t('review.cancel')}</Button>
          </Modal.Close>
          <Button
            variant="danger"
            disabled={trimmed === '' || busy}
            loading={busy}
            data-testid="image-api-review-reason-confirm"
            onClick={async () => {
              setBusy(true);
              try {
                await onConfirm(trimmed);
                setOpen(false);
                setReason('');
              } finally {
                setBusy(false);
              }
            }}
          >
            {confirm}
          </Button>
        </Modal.Footer>
      </Modal.Content>
    </Modal.Root>
  );
}
