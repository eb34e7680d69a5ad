/**
 * Contact groups as the management API shows them (`/groups`), in OpenHIM's shape: a named list of alert recipients
 * that a channel's alert names by `_id` (`alerts[].groups`). Import with `import type`.
 */
import type { AlertMaxFrequency, AlertMethod, AlertRecipient } from './channels.js';

/**
 * Someone who is not a console user, told of the group's alerts directly (issue 35): a vendor, an IT mailing list, a
 * phone. `address` is an email address for `email`, a phone number (6 to 15 digits, optional leading +) for `sms`.
 */
export interface ExternalRecipient {
  address: string;
  method: AlertMethod;
  maxAlerts: AlertMaxFrequency;
}

/** One external recipient as sent; `maxAlerts` defaults to `no max`. */
export interface ExternalRecipientInput {
  address: string;
  method: AlertMethod;
  maxAlerts?: AlertMaxFrequency;
  /** What a store gives sub-documents, in a group sent back as it came: accepted and ignored. */
  _id?: string;
}

/** A contact group: its unique name and who gets the alerts sent to it. */
export interface ContactGroup {
  _id: string;
  group: string;
  users: AlertRecipient[];
  /** Recipients who are not users (Junction's own field; answered only when there are some, so OpenHIM's shape stays). */
  external?: ExternalRecipient[];
}

/** One recipient as sent; `maxAlerts` defaults to `no max` (OpenHIM). `_id` is what OpenHIM gives sub-documents: accepted and ignored. */
export interface ContactGroupUserInput {
  /** The user's email (the alert is sent to that user's address or phone number). */
  user: string;
  method: AlertMethod;
  maxAlerts?: AlertMaxFrequency;
  _id?: string;
}

/** `POST /groups`. `_id` and `__v`, found in a group fetched from OpenHIM or Junction, are accepted and ignored. */
export interface ContactGroupCreateInput {
  group: string;
  /** Omitted: no recipients yet. */
  users?: ContactGroupUserInput[];
  /** Recipients who are not users; omitted: none (on update: unchanged). */
  external?: ExternalRecipientInput[];
  _id?: string;
  __v?: number;
}

/** `PUT /groups/:id`: omitted fields stay; a given `users` is the complete new list. */
export type ContactGroupUpdateInput = Partial<ContactGroupCreateInput>;

/** A channel whose alerts name a group, as a refused deletion lists it (`details.channels` of the 409). */
export interface ChannelUsingGroup {
  _id: string;
  name: string;
  status: string;
}
