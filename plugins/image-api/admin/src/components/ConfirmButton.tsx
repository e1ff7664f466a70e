/**
 * A button whose action runs once the admin confirms it in Strapi's own dialog (as the Content
 * Manager asks before deleting), not the browser's `confirm()`, which looks foreign in the panel and
 * which some browsers suppress.
 */
import { useState, type ReactNode } from 'react';
import { Button, Dialog, type ButtonProps } from '@strapi/design-system';
import { ConfirmDialog } from '@strapi/strapi/admin';

interface Props {
  /** The button's label. */
  children: ReactNode;
  /** The dialog's title and question. */
  title: string;
  question: string;
  onConfirm: () => Promise<void> | void;
  variant?: ButtonProps['variant'];
  size?: ButtonProps['size'];
  disabled?: boolean;
}

export function ConfirmButton({ children, title, question, onConfirm, variant = 'danger-light', size, disabled }: Props) {
  const [open, setOpen] = useState(false);
  return (
    <Dialog.Root open={open} onOpenChange={setOpen}>
      <Dialog.Trigger>
        <Button variant={variant} size={size} disabled={disabled}>
          {children}
        </Button>
      </Dialog.Trigger>
      <ConfirmDialog
        title={title}
        variant="danger"
        onConfirm={async () => {
          setOpen(false);
          await onConfirm();
        }}
      >
        {question}
      </ConfirmDialog>
    </Dialog.Root>
  );
}
