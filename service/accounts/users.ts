/**
 * User accounts: creation, updates, deletion, credentials and first-run seeding, over the users collection; and a user
 * as the author of a change (`updatedBy`).
 */
import type { Logger } from 'pino';
import { AppError } from '../errors.js';
import { conflict } from '../refusals.js';
import { ADMIN_GROUP } from '../domain/permissions.js';
import { passwordProblem } from '../domain/password-policy.js';
import type { Collection } from '../storage/store.js';
import type { UserRecord } from '../storage/records.js';
import { hashPassword, legacyTokenCredential, verifyPassword } from './passwords.js';
import type { UserCreateInput } from '../contracts/users.js';

/** The built-in super user's documented first-run credentials; the password must be changed at first login. */
export const ROOT_EMAIL = 'root@junction.local';
export const DEFAULT_ROOT_PASSWORD = 'junction-password';

/** A new account: the `POST /users` payload (contracts/users.ts). */
export type NewUserInput = UserCreateInput;

export type UserChanges = Partial<Omit<NewUserInput, 'password' | 'msisdn'>> & { password?: string; msisdn?: string | null };

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

const userConflict = conflict({ message: (field) => `A user with this ${field} already exists`, problem: 'already in use' });

export class UserAccounts {
  readonly #users: Collection<UserRecord>;
  readonly #logger: Logger;
  readonly #legacyTokens: boolean;

  constructor(options: { users: Collection<UserRecord>; logger: Logger; legacyTokens: boolean }) {
    this.#users = options.users;
    this.#logger = options.logger;
    this.#legacyTokens = options.legacyTokens;
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

  /** Returns the user when the password matches; otherwise null, in the same time whether or not the user exists. */
  async verify(email: string, password: string): Promise<UserRecord | null> {
    const user = await this.findByEmail(email);
    const ok = await verifyPassword(password, user?.passwordHash);
    return ok && user !== null ? user : null;
  }

  async #credentials(password: string) {
    return {
      passwordHash: await hashPassword(password),
      passwordChangedAt: new Date(),
      ...(this.#legacyTokens ? { legacyToken: legacyTokenCredential(password) } : {}),
    };
  }

  /** Creates a user; 409 when the email is taken, 400 when the password breaks the rules. */
  async create(input: NewUserInput): Promise<UserRecord> {
    const email = normaliseEmail(input.email);
    checkPassword(input.password, email);
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
      ...(await this.#credentials(input.password)),
    };
    if (input.msisdn !== undefined) record.msisdn = input.msisdn;
    return this.#users.insert(record).catch(userConflict);
  }

  /** Applies validated changes; a new password clears the forced-change flag unless an admin sets it again. */
  async update(target: UserRecord, changes: UserChanges): Promise<UserRecord> {
    const set: Partial<Omit<UserRecord, '_id'>> = { updatedAt: new Date() };
    const email = changes.email === undefined ? target.email : normaliseEmail(changes.email);
    if (changes.email !== undefined) set.email = email;
    if (changes.firstname !== undefined) set.firstname = changes.firstname;
    if (changes.surname !== undefined) set.surname = changes.surname;
    if (changes.groups !== undefined) set.groups = [...new Set(changes.groups)];
    if (changes.msisdn !== undefined && changes.msisdn !== null) set.msisdn = changes.msisdn;
    const unset: 'msisdn'[] = changes.msisdn === null ? ['msisdn'] : [];
    if (changes.dailyReport !== undefined) set.dailyReport = changes.dailyReport;
    if (changes.weeklyReport !== undefined) set.weeklyReport = changes.weeklyReport;
    if (changes.settings !== undefined) set.settings = changes.settings;
    if (changes.password !== undefined) {
      checkPassword(changes.password, email);
      if (await verifyPassword(changes.password, target.passwordHash)) {
        throw new AppError('PASSWORD_TOO_WEAK', 'password must differ from the current password', [
          { path: 'body.password', message: 'must differ from the current password' },
        ]);
      }
      Object.assign(set, await this.#credentials(changes.password), { passwordChangeRequired: false });
    }
    if (changes.passwordChangeRequired !== undefined) set.passwordChangeRequired = changes.passwordChangeRequired;
    const updated = await this.#users.updateById(target._id, { set, unset }).catch(userConflict);
    if (updated === null) throw new AppError('NOT_FOUND', `No user with email ${target.email}`);
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

  /** Removes legacy token credentials while the deprecated token scheme is off, so no weak hash stays on disk. */
  async dropLegacyCredentialsUnlessEnabled(): Promise<void> {
    if (this.#legacyTokens) return;
    const removed = await this.#users.updateMany({ legacyToken: { $exists: true } }, { unset: ['legacyToken'] });
    if (removed > 0) this.#logger.info({ users: removed }, 'removed legacy token credentials (token authentication is off)');
  }
}
