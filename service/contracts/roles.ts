/** Roles as the management API shows them (`/roles`): a view over channels' `allow` and clients' `roles`. */

export interface Role {
  name: string;
  channels: { _id: string; name: string }[];
  clients: { _id: string; clientID: string }[];
}

/** A channel by `_id` or `name`. */
export interface ChannelRef {
  _id?: string;
  name?: string;
}

/** A client by `_id` or `clientID`. */
export interface ClientRef {
  _id?: string;
  clientID?: string;
}

/** `POST /roles`: at least one channel or client. */
export interface RoleCreateInput {
  name: string;
  channels?: ChannelRef[];
  clients?: ClientRef[];
}

/** `PUT /roles/:name`: a given array is the complete list; an omitted one stays; a new name renames. */
export interface RoleUpdateInput {
  name?: string;
  channels?: ChannelRef[];
  clients?: ClientRef[];
}
