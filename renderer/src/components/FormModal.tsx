/** A dialog holding an add/edit form, scrolling inside itself when the form is taller than the window. */
import type { ReactNode } from 'react';
import { Modal, ScrollArea } from '@mantine/core';

/** Which form a list page has open: none, a new item's, or an existing item's. */
export type Editing<T> = { mode: 'closed' } | { mode: 'new' } | { mode: 'edit'; item: T };

export interface FormModalProps {
  opened: boolean;
  onClose: () => void;
  title: string;
  size?: 'md' | 'lg' | 'xl';
  children: ReactNode;
}

export function FormModal({ opened, onClose, title, size = 'lg', children }: FormModalProps) {
  return (
    <Modal opened={opened} onClose={onClose} title={title} size={size} scrollAreaComponent={ScrollArea.Autosize}>
      {children}
    </Modal>
  );
}
