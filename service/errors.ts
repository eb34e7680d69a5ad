/**
 * The error catalogue: every error a caller can cause has a stable code, an HTTP status and a default message.
 * All 4xx/5xx answers of the management API use one shape: {"error": {"code", "message", "details"}}.
 */
import type { ApiErrorBody } from './contracts/api.js';

export const errorCatalogue = {
  BAD_REQUEST: { status: 400, message: 'The request is not valid' },
  VALIDATION_FAILED: { status: 400, message: 'The request does not match the expected shape' },
  INVALID_JSON: { status: 400, message: 'The request body is not valid JSON' },
  INVALID_UTF8: { status: 400, message: 'The request body is not valid UTF-8; send JSON text encoded as UTF-8' },
  INVALID_URL: { status: 400, message: 'The URL path holds a malformed percent-escape: write % as %25, and every other escape as % and two hexadecimal digits' },
  BAD_HANDSHAKE: { status: 400, message: 'The websocket handshake is not valid: send GET with Upgrade: websocket, a Sec-WebSocket-Key and Sec-WebSocket-Version: 13' },
  PASSWORD_TOO_WEAK: { status: 400, message: 'The password does not meet the password rules' },
  UNAUTHENTICATED: { status: 401, message: 'Authentication is required' },
  INVALID_CREDENTIALS: { status: 401, message: 'The username or password is wrong' },
  INVALID_TOKEN: { status: 401, message: 'The authentication token is wrong or expired' },
  AUTH_TYPE_DISABLED: { status: 401, message: 'This authentication type is not enabled' },
  OPENID_STATE_INVALID: { status: 400, message: 'The OpenID sign-in state is unknown, used already, expired or from another browser; start the sign-in again' },
  OPENID_REFUSED: { status: 401, message: 'The OpenID sign-in was refused' },
  OPENID_USER_UNKNOWN: { status: 403, message: 'No Junction user has the email the OpenID provider gave' },
  OPENID_PROVIDER_UNAVAILABLE: { status: 502, message: 'The OpenID provider could not be reached' },
  FORBIDDEN: { status: 403, message: 'You are not allowed to do this' },
  CROSS_ORIGIN_REFUSED: { status: 403, message: "Requests that change something are accepted only from this server's own pages and the consoles named in api.corsOrigins" },
  REQUEST_MARKER_REQUIRED: { status: 400, message: 'A POST without a JSON body must carry the header X-Requested-With (any value)' },
  PASSWORD_CHANGE_REQUIRED: {
    status: 403,
    message: 'The password must be changed first: PUT /users/<your email> with a new "password"',
  },
  BUILTIN_USER_PROTECTED: { status: 403, message: 'The built-in super user cannot be deleted or lose the admin group' },
  NOT_FOUND: { status: 404, message: 'Not found' },
  METHOD_NOT_ALLOWED: { status: 405, message: 'Method not allowed' },
  TOKEN_EXPIRED: { status: 410, message: 'This set-password link has expired; ask an administrator for a new one' },
  CONFLICT: { status: 409, message: 'The resource conflicts with an existing one' },
  SEARCH_DISABLED: { status: 409, message: 'Searching by patient ID, order number, control ID, message type or text is off on this Junction (search.enabled is false)' },
  REQUEST_TIMEOUT: { status: 408, message: 'The request did not arrive in time' },
  BODY_TOO_LARGE: { status: 413, message: 'The request body is larger than the configured limit' },
  PATH_PARAMETER_TOO_LONG: { status: 414, message: 'A part of the URL path is longer than 500 characters' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, message: 'The request body must be application/json' },
  TOO_MANY_ATTEMPTS: { status: 429, message: 'Too many failed login attempts; try again later' },
  TOO_MANY_REQUESTS: { status: 429, message: 'Too many password reset requests from this address; try again later' },
  HEADERS_TOO_LARGE: { status: 431, message: 'The request line and headers are larger than the server accepts; send long filters in fewer or shorter parameters' },
  CHANNEL_NOT_FOUND: { status: 404, message: 'No channel matches this request' },
  CLIENT_NOT_AUTHORISED: { status: 401, message: 'The client is not allowed to use this channel' },
  CLIENT_UNAUTHENTICATED: { status: 401, message: 'The client could not be authenticated' },
  CLIENT_THROTTLED: { status: 429, message: 'Too many failed authentication attempts from this address; try again later' },
  ROUTE_FAILED: { status: 500, message: 'The downstream service could not be reached' },
  ROUTE_TIMEOUT: { status: 504, message: 'The downstream service did not answer in time' },
  BAD_FRAME: { status: 400, message: 'The live feed accepts only JSON text frames of the form {"type": "ping"}' },
  TOO_MANY_CONNECTIONS: { status: 503, message: 'The live feed has too many connections; try again later' },
  SERVICE_STOPPING: { status: 503, message: 'Junction is stopping; connect again once it has restarted' },
  TRANSACTION_NOT_RERUNNABLE: { status: 400, message: 'The transaction cannot be re-run' },
  INTERNAL: { status: 500, message: 'An internal error occurred; the details are in the service log' },
  STORE_UNAVAILABLE: { status: 503, message: 'The data store is not available' },
  SETTINGS_TEST_FAILED: { status: 502, message: 'The test message was not accepted by the SMTP server or SMS gateway' },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof errorCatalogue;

/** An error that knows its HTTP answer. Throw it from anywhere in the API; the error handler renders it. */
export class AppError extends Error {
  override readonly name = 'AppError';
  readonly status: number;
  readonly headers: Record<string, string>;

  constructor(
    readonly code: ErrorCode,
    message?: string,
    readonly details?: unknown,
    options?: { headers?: Record<string, string>; cause?: unknown },
  ) {
    super(message ?? errorCatalogue[code].message, { cause: options?.cause });
    this.status = errorCatalogue[code].status;
    this.headers = options?.headers ?? {};
  }

  /** The JSON body for this error. */
  toBody(): ApiErrorBody {
    return errorBody(this.code, this.message, this.details);
  }
}

/** Builds the one JSON error shape. */
export function errorBody(code: ErrorCode, message?: string, details?: unknown): ApiErrorBody {
  return { error: { code, message: message ?? errorCatalogue[code].message, details: details ?? null } };
}
