/** A new password and its confirmation, side by side (or stacked in a narrow form), both as new-password fields. */
import type { ReactNode } from 'react';
import { PasswordInput, SimpleGrid } from '@mantine/core';

export interface PasswordPairFieldsProps {
  password: string;
  confirm: string;
  onPasswordChange: (value: string) => void;
  onConfirmChange: (value: string) => void;
  /** Labels of the two fields; "Password" and "Confirm password" unless given. */
  labels?: { password: string; confirm: string };
  descriptions?: { password?: ReactNode; confirm?: ReactNode };
  errors?: { password?: ReactNode; confirm?: ReactNode };
  required?: boolean;
  disabled?: boolean;
  /** 2 puts the fields side by side; 1 stacks them. */
  cols?: 1 | 2;
}

export function PasswordPairFields({
  password,
  confirm,
  onPasswordChange,
  onConfirmChange,
  labels = { password: 'Password', confirm: 'Confirm password' },
  descriptions,
  errors,
  required,
  disabled,
  cols = 2,
}: PasswordPairFieldsProps) {
  return (
    <SimpleGrid cols={cols}>
      <PasswordInput
        label={labels.password}
        description={descriptions?.password}
        required={required}
        value={password}
        onChange={(e) => onPasswordChange(e.currentTarget.value)}
        error={errors?.password}
        disabled={disabled}
        autoComplete="new-password"
      />
      <PasswordInput
        label={labels.confirm}
        description={descriptions?.confirm}
        required={required}
        value={confirm}
        onChange={(e) => onConfirmChange(e.currentTarget.value)}
        error={errors?.confirm}
        disabled={disabled}
        autoComplete="new-password"
      />
    </SimpleGrid>
  );
}

/** The labels where a signed-in person replaces their own password. */
export const NEW_PASSWORD_LABELS = { password: 'New password', confirm: 'Confirm new password' } as const;

/** A new password typed twice: the two values and their setters, as useState gives them. */
export interface NewPasswordPair {
  password: string;
  confirm: string;
  setPassword: (value: string) => void;
  setConfirm: (value: string) => void;
}

/** The required "New password" pair of the pages where a person chooses their own password. */
export function NewPasswordFields({ pair, description, errors, cols }: { pair: NewPasswordPair; description: ReactNode; errors: PasswordPairFieldsProps['errors']; cols?: 1 | 2 }) {
  return (
    <PasswordPairFields
      password={pair.password}
      confirm={pair.confirm}
      onPasswordChange={pair.setPassword}
      onConfirmChange={pair.setConfirm}
      labels={NEW_PASSWORD_LABELS}
      descriptions={{ password: description }}
      errors={errors}
      required
      cols={cols}
    />
  );
}
