/** What answers show instead of a stored secret; sent back unchanged in an update, it keeps the stored value. */
export const PASSWORD_MASK = '********';
