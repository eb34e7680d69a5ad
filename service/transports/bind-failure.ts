/** Why a channel's port could not be bound, in words an administrator can act on (the channel answers show it). */

/** The reason a listen failed; `holder` is the name of another channel already listening on that port, if any. */
export function bindFailure(err: NodeJS.ErrnoException, host: string, port: number, holder?: string): string {
  switch (err.code) {
    case 'EADDRINUSE':
      return holder === undefined ? `port ${port} is already in use by another program` : `port ${port} is already in use by the channel '${holder}'`;
    case 'EACCES':
    case 'EPERM':
      return `not permitted to listen on port ${port}${port < 1024 ? ' (ports below 1024 need administrator rights; choose a higher port)' : ''}`;
    case 'EADDRNOTAVAIL':
      return `the address ${host} (tcpHost) does not belong to this computer`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_NONAME':
      return `the host name ${host} (tcpHost) could not be resolved`;
    default:
      return `cannot listen on ${host}:${port}: ${err.message}`;
  }
}
