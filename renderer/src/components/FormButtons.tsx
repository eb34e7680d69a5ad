/** The foot of a dialog form: Cancel, then the submit button (spinning while the save runs). */
import { Button, Group } from '@mantine/core';

export function FormButtons({ submitLabel, busy, onCancel }: { submitLabel: string; busy: boolean; onCancel: () => void }) {
  return (
    <Group justify="flex-end">
      <Button variant="default" onClick={onCancel}>
        Cancel
      </Button>
      <Button type="submit" loading={busy}>
        {submitLabel}
      </Button>
    </Group>
  );
}
