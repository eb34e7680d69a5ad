/**
 * User accounts: creation (with a password, or invited to set one), updates, deletion, credentials, OpenHIM's
 * set-password tokens and first-run seeding, over the users collection; and a user as the author of a change
 * (`updatedBy`). Bodies come in OpenHIM's shape: null means "not set".
 */
import type { Logger } from 'pino';
import { AppError } from '../errors.js';
import { conflict } from '../refusals.js';
import { ADMIN_GROUP } from '../domain/access/permissions.js';
import { passwordProblem } from '../domain/access/password-policy.js';
import type { Collection } from '../storage/store.js';
import type { UserRecord } from '../storage/records.js';
import { hashPassword, isPasswordHash, legacyTokenCredential, verifyPassword } from './passwords.js';
import { newPasswordToken, passwordTokenDigest, TOKEN_LIFETIME_MS, unsentLinks } from './password-tokens.js';
import type { PasswordLinkSender } from './password-tokens.js';
import type { ClaimedUser } from '../domain/access/openid-claims.js';
import type { PasswordTokenType, TokenPasswordInput, UserCreateInput, UserUpdateInput } from '../contracts/users.js';

/** The built-in super user's documented first-run credentials; the password must be changed at first login. */
export const ROOT_EMAIL = 'root@junction.local';
export const DEFAULT_ROOT_PASSWORD = 'junction-password';

/** A new account: the `POST /users` payload (contracts/users.ts). */
export type NewUserInput = UserCreateInput;

export type UserChanges = UserUpdateInput;

/** A set-password token as made: the token itself exists only here, to be sent or shown once. */
export interface IssuedToken {
  user: UserRecord;
  token: string;
  tokenType: PasswordTokenType;
  expiry: Date;
}

/** True for a value that was sent: OpenHIM's console sends unused fields as null. */
const given = <T>(value: T | null | undefined): value is T => value !== undefined && value !== null;

/** The stored token fields, removed together once a password is set. */
const TOKEN_FIELDS = ['tokenHash', 'tokenType', 'tokenExpiry'] as const;

/** Who made a change, as records keep it in `updatedBy`. */
export type Author = { id: string; name: string };

/** The user as the author of a change. */
export function authorOf(user: UserRecord): Author {
  return { id: user._id, name: user.email };
}

/** Lower-cases and trims an email so lookups and uniqueness ignore case. */
export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

function checkPassword(password: string, email: string): void {
  const problem = passwordProblem(password, { email, defaultPassword: DEFAULT_ROOT_PASSWORD });
  if (problem !== null) {
    throw new AppError('PASSWORD_TOO_WEAK', `password ${problem}`, [{ path: 'body.password', message: problem }]);
  }
}

function checkImportedHash(passwordHash: string): void {
  if (!isPasswordHash(passwordHash)) throw new AppError('VALIDATION_FAILED', 'secrets.passwordHash is not a password hash Junction wrote', [{ path: 'secrets.passwordHash', message: 'is not a password hash Junction wrote' }]);
}

const userConflict = conflict({ message: (field) => `A user with this ${field} already exists`, problem: 'already in use' });

export class UserAccounts {
  readonly #users: Collection<UserRecord>;
  readonly #logger: Logger;
  readonly #legacyTokens: boolean;

  readonly #sendLink: PasswordLinkSender;
  readonly #now: () => number;

  constructor(options: { users: Collection<UserRecord>; logger: Logger; legacyTokens: boolean; sendLink?: PasswordLinkSender; now?: () => number }) {
    this.#users = options.users;
    this.#logger = options.logger;
    this.#legacyTokens = options.legacyTokens;
    this.#sendLink = options.sendLink ?? unsentLinks(options.logger);
    this.#now = options.now ?? Date.now;
  }

  /** Finds a user by email, case-insensitively. */
  findByEmail(email: string): Promise<UserRecord | null> {
    return this.#users.findOne({ email: normaliseEmail(email) });
  }

  /** The user with this email, case-insensitively; 404 when there is none. */
  async get(email: string): Promise<UserRecord> {
    const user = await this.findByEmail(email);
    if (user === null) throw new AppError('NOT_FOUND', `No user with email ${email}`);
    return user;
  }

  findById(id: string): Promise<UserRecord | null> {
    return this.#users.findById(id);
  }

  /** All users, ordered by email. */
  list(): Promise<UserRecord[]> {
    return this.#users.find({}, { sort: { email: 1 } });
  }

  /**
   * Returns the user when the password matches; otherwise null, in the same time whether or not the user exists.
   * While the token scheme is on, a user whose password was set before it was turned on gets its credential here,
   * from the password just proven: turning the scheme on must not make anyone set their password again.
   */
  async verify(email: string, password: string): Promise<UserRecord | null> {
    const user = await this.findByEmail(email);
    const ok = await verifyPassword(password, user?.passwordHash);
    if (!ok || user === null) return null;
    if (!this.#legacyTokens || user.legacyToken !== undefined) return user;
    const updated = await this.#users.updateMany({ _id: user._id, passwordHash: user.passwordHash, legacyToken: { $exists: false } }, { set: { legacyToken: legacyTokenCredential(password) } });
    if (updated > 0) this.#logger.info({ user: user.email }, 'created the token-scheme credential at sign-in (token authentication is on)');
    return (await this.#users.findById(user._id)) ?? user;
  }

  async #credentials(password: string) {
    return {
      passwordHash: await hashPassword(password),
      passwordChangedAt: new Date(),
      ...(this.#legacyTokens ? { legacyToken: legacyTokenCredential(password) } : {}),
    };
  }

  /**
   * Creates a user; 409 when the email is taken, 400 when the password breaks the rules. Without a password the user
   * is invited: locked out until they set one through the set-password link, which goes to the link sender.
   */
  async create(input: NewUserInput): Promise<UserRecord> {
    const email = normaliseEmail(input.email);
    const password = input.password ?? '';
    if (password !== '') checkPassword(password, email);
    const now = new Date();
    const record: Omit<UserRecord, '_id'> = {
      email,
      firstname: input.firstname,
      surname: input.surname,
      groups: [...new Set(input.groups)],
      dailyReport: input.dailyReport ?? false,
      weeklyReport: input.weeklyReport ?? false,
      settings: input.settings ?? {},
      passwordChangeRequired: input.passwordChangeRequired ?? false,
      createdAt: now,
      updatedAt: now,
      ...(password === '' ? { passwordHash: null } : await this.#credentials(password)),
    };
    if (typeof input.msisdn === 'string' && input.msisdn !== '') record.msisdn = input.msisdn;
    const created = await this.#users.insert(record).catch(userConflict);
    if (password !== '') return created;
    const issued = await this.issueToken(created, 'newUser');
    await this.#sendLink(issued);
    return issued.user;
  }

  /**
   * Makes a new set-password token for the user, replacing any pending one (so only the latest link works). The
   * token is returned this once; only its digest is kept.
   */
  async issueToken(user: UserRecord, tokenType: PasswordTokenType): Promise<IssuedToken> {
    const { token, hash } = newPasswordToken();
    const expiry = new Date(this.#now() + TOKEN_LIFETIME_MS[tokenType]);
    const updated = await this.#users.updateById(user._id, { set: { tokenHash: hash, tokenType, tokenExpiry: expiry } });
    if (updated === null) throw new AppError('NOT_FOUND', `No user with email ${user.email}`);
    return { user: updated, token, tokenType, expiry };
  }

  /**
   * OpenHIM's `GET /password-reset-request/:email`: a reset link for an existing user, sent to them. Unknown
   * addresses and the built-in account (whose address receives no mail) get nothing, and the caller cannot tell.
   * A user still invited keeps the invitation's kind, so they may still give their names with the password.
   */
  async requestReset(email: string): Promise<void> {
    const user = await this.findByEmail(email);
    if (user === null || user.builtin === true || user.provider === 'openid') return;
    const tokenType: PasswordTokenType = user.passwordHash === null ? 'newUser' : 'existingUser';
    await this.#sendLink(await this.issueToken(user, tokenType));
  }

  /** The user a set-password token belongs to; 404 for an unknown or used token, 410 for an expired one. */
  async byToken(token: string): Promise<UserRecord & { tokenType: PasswordTokenType; tokenExpiry: Date }> {
    const user = await this.#users.findOne({ tokenHash: passwordTokenDigest(token) });
    if (user?.tokenType === undefined || user.tokenExpiry === undefined) throw new AppError('NOT_FOUND', 'No user has this set-password token: it is wrong, or it was used already');
    if (user.tokenExpiry.getTime() <= this.#now()) throw new AppError('TOKEN_EXPIRED');
    return { ...user, tokenType: user.tokenType, tokenExpiry: user.tokenExpiry };
  }

  /**
   * Sets the password through a token (the password rules apply) and ends the token. An invited user may also give
   * their names and number, as in OpenHIM. The token is spent atomically: of two uses at once, one gets 404.
   */
  async setPasswordByToken(token: string, input: TokenPasswordInput): Promise<UserRecord> {
    const user = await this.byToken(token);
    if (user.provider === 'openid') throw new AppError('FORBIDDEN', 'This user signs in with OpenID Connect and has no password here; the password is changed at the OpenID provider');
    checkPassword(input.password, user.email);
    const set: Partial<Omit<UserRecord, '_id'>> = { ...(await this.#credentials(input.password)), passwordChangeRequired: false, updatedAt: new Date() };
    const unset: (typeof TOKEN_FIELDS[number] | 'msisdn')[] = [...TOKEN_FIELDS];
    if (user.tokenType === 'newUser') {
      if (input.firstname !== undefined) set.firstname = input.firstname;
      if (input.surname !== undefined) set.surname = input.surname;
      if (input.msisdn === null || input.msisdn === '') unset.push('msisdn');
      else if (input.msisdn !== undefined) set.msisdn = input.msisdn;
    }
    const spent = await this.#users.updateMany({ _id: user._id, tokenHash: passwordTokenDigest(token) }, { set, unset });
    if (spent === 0) throw new AppError('NOT_FOUND', 'No user has this set-password token: it is wrong, or it was used already');
    return (await this.#users.findById(user._id)) ?? user;
  }

  /**
   * Applies validated changes; null leaves a field as it is (OpenHIM's "not set"), except the MSISDN, which null or
   * '' removes. A new password clears the forced-change flag unless an admin sets it again, and ends a pending
   * set-password link.
   */
  async update(target: UserRecord, changes: UserChanges): Promise<UserRecord> {
    const set: Partial<Omit<UserRecord, '_id'>> = { updatedAt: new Date() };
    const email = given(changes.email) ? normaliseEmail(changes.email) : target.email;
    if (given(changes.email)) set.email = email;
    if (given(changes.firstname)) set.firstname = changes.firstname;
    if (given(changes.surname)) set.surname = changes.surname;
    if (given(changes.groups)) set.groups = [...new Set(changes.groups)];
    if (typeof changes.msisdn === 'string' && changes.msisdn !== '') set.msisdn = changes.msisdn;
    const unset: ('msisdn' | (typeof TOKEN_FIELDS)[number])[] = changes.msisdn === null || changes.msisdn === '' ? ['msisdn'] : [];
    if (given(changes.dailyReport)) set.dailyReport = changes.dailyReport;
    if (given(changes.weeklyReport)) set.weeklyReport = changes.weeklyReport;
    if (given(changes.settings)) set.settings = changes.settings;
    if (given(changes.password) && changes.password !== '') {
      checkPassword(changes.password, email);
      // A new password must differ, except to give a user the token-scheme credential it lacks (its password was set
      // before the scheme was turned on): setting the same one again then makes it, and no mediator needs a new one.
      const makesTokenCredential = this.#legacyTokens && target.legacyToken === undefined && !target.passwordChangeRequired;
      if (!makesTokenCredential && (await verifyPassword(changes.password, target.passwordHash))) {
        throw new AppError('PASSWORD_TOO_WEAK', 'password must differ from the current password', [
          { path: 'body.password', message: 'must differ from the current password' },
        ]);
      }
      Object.assign(set, await this.#credentials(changes.password), { passwordChangeRequired: false });
      unset.push(...TOKEN_FIELDS);
    }
    if (given(changes.passwordChangeRequired)) set.passwordChangeRequired = changes.passwordChangeRequired;
    const updated = await this.#users.updateById(target._id, { set, unset }).catch(userConflict);
    if (updated === null) throw new AppError('NOT_FOUND', `No user with email ${target.email}`);
    return updated;
  }

  /**
   * The user an OpenID sign-in names, found by email: groups come from the provider when the mapping reads them.
   * An unknown email is created (no password, `provider: 'openid'`) only when allowed; otherwise 403 says why.
   */
  async signInFromProvider(claimed: ClaimedUser, createUsers: boolean): Promise<UserRecord> {
    const existing = await this.findByEmail(claimed.email);
    if (existing === null) {
      if (!createUsers) {
        throw new AppError('OPENID_USER_UNKNOWN', `No Junction user has the email ${claimed.email}; an administrator must create it first (or set api.openid.createUsers)`);
      }
      const now = new Date();
      return this.#users
        .insert({
          email: claimed.email,
          firstname: claimed.firstname,
          surname: claimed.surname,
          groups: claimed.groups ?? [],
          dailyReport: false,
          weeklyReport: false,
          settings: {},
          passwordChangeRequired: false,
          provider: 'openid',
          createdAt: now,
          updatedAt: now,
          passwordHash: null,
        })
        .catch(userConflict);
    }
    // An OpenID user has no password here, so a forced password change could never be met.
    if (existing.provider === 'openid' && existing.passwordChangeRequired) {
      const cleared = await this.#users.updateById(existing._id, { set: { passwordChangeRequired: false, updatedAt: new Date() } });
      if (cleared !== null) return this.signInFromProvider(claimed, createUsers);
    }
    // The built-in super user always keeps the admin group, whatever the provider says.
    if (claimed.groups === null) return existing;
    const groups = existing.builtin === true && !claimed.groups.includes(ADMIN_GROUP) ? [ADMIN_GROUP, ...claimed.groups] : claimed.groups;
    if (groups.length === existing.groups.length && groups.every((g, i) => existing.groups[i] === g)) return existing;
    const updated = await this.#users.updateById(existing._id, { set: { groups, updatedAt: new Date() } });
    if (updated === null) throw new AppError('NOT_FOUND', `No user with email ${existing.email}`);
    return updated;
  }

  /** Deletes a user; the route has already checked permission. */
  async remove(target: UserRecord): Promise<void> {
    await this.#users.removeById(target._id);
  }

  /**
   * First run: ensures the built-in super user exists. A pre-seeded password (unattended installs) is applied only
   * while the account still has its first-run password, so a later restart never undoes an administrator's change.
   */
  async seedSuperUser(adminPassword: string | undefined): Promise<UserRecord> {
    const existing = await this.#users.findOne({ builtin: true });
    if (existing === null) {
      const password = adminPassword ?? DEFAULT_ROOT_PASSWORD;
      if (adminPassword !== undefined) checkPassword(adminPassword, ROOT_EMAIL);
      const now = new Date();
      const root = await this.#users.insert({
        email: ROOT_EMAIL,
        firstname: 'Super',
        surname: 'User',
        groups: [ADMIN_GROUP],
        dailyReport: false,
        weeklyReport: false,
        settings: {},
        passwordChangeRequired: adminPassword === undefined,
        builtin: true,
        createdAt: now,
        updatedAt: now,
        ...(await this.#credentials(password)),
      });
      this.#logger.info(
        { email: ROOT_EMAIL, preseeded: adminPassword !== undefined },
        adminPassword === undefined
          ? 'created the built-in super user with the default password; it must be changed at first login'
          : 'created the built-in super user with the pre-seeded password',
      );
      return root;
    }
    if (adminPassword !== undefined) {
      if (existing.passwordChangeRequired) {
        checkPassword(adminPassword, existing.email);
        const updated = await this.#users.updateById(existing._id, {
          set: { ...(await this.#credentials(adminPassword)), passwordChangeRequired: false, updatedAt: new Date() },
        });
        this.#logger.info({ email: existing.email }, 'applied the pre-seeded password to the built-in super user');
        return updated ?? existing;
      }
      this.#logger.info('ignored the pre-seeded admin password: the super user has already changed its password');
    }
    return existing;
  }

  /**
   * Metadata import with secrets: a user who keeps the password hash exported from another Junction, so they sign in
   * with their old password and get no invitation. The hash must be one hashPassword wrote (400 otherwise).
   */
  async createWithHash(input: NewUserInput, passwordHash: string): Promise<UserRecord> {
    checkImportedHash(passwordHash);
    const invited = { ...input, password: undefined };
    const now = new Date();
    const record: Omit<UserRecord, '_id'> = {
      email: normaliseEmail(invited.email),
      firstname: invited.firstname,
      surname: invited.surname,
      groups: [...new Set(invited.groups)],
      dailyReport: invited.dailyReport ?? false,
      weeklyReport: invited.weeklyReport ?? false,
      settings: invited.settings ?? {},
      passwordChangeRequired: invited.passwordChangeRequired ?? false,
      createdAt: now,
      updatedAt: now,
      passwordHash,
      passwordChangedAt: now,
    };
    if (typeof invited.msisdn === 'string' && invited.msisdn !== '') record.msisdn = invited.msisdn;
    return this.#users.insert(record).catch(userConflict);
  }

  /** Metadata import with secrets over an existing user: the exported hash replaces theirs, and a pending link ends. */
  async replaceHash(target: UserRecord, passwordHash: string): Promise<UserRecord> {
    checkImportedHash(passwordHash);
    // A token-scheme credential of the old password would still let it in: made again at the next sign-in.
    const updated = await this.#users.updateById(target._id, { set: { passwordHash, passwordChangedAt: new Date(), updatedAt: new Date() }, unset: [...TOKEN_FIELDS, 'legacyToken'] });
    if (updated === null) throw new AppError('NOT_FOUND', `No user with email ${target.email}`);
    return updated;
  }

  /** Removes legacy token credentials while the deprecated token scheme is off, so no weak hash stays on disk. */
  async dropLegacyCredentialsUnlessEnabled(): Promise<void> {
    if (this.#legacyTokens) return;
    const removed = await this.#users.updateMany({ legacyToken: { $exists: true } }, { unset: ['legacyToken'] });
    if (removed > 0) this.#logger.info({ users: removed }, 'removed legacy token credentials (token authentication is off)');
  }
}
