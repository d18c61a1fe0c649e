// Outermost interceptor: whatever a handler or an inner interceptor throws
// leaves as one ConnectError with Keyhold's details, in the caller's language,
// naming the request (its id in ErrorInfo.metadata, its code in the request's log line).
// Server-side failures are logged here, without request bodies, once per kind
// and interval (a full disk or a lost database fails every request alike:
// ../repeated-errors.ts).
import type { Interceptor } from '@connectrpc/connect';
import { toStatus } from '../status.js';
import { negotiateLanguage } from '../../../domain/i18n/language.js';
import type { RepeatedErrorLog } from '../../repeated-errors.js';
import { requestKey } from '../../http/requests.js';

export function errorInterceptor(errors: RepeatedErrorLog): Interceptor {
  return (next) => async (req) => {
    try {
      return await next(req);
    } catch (thrown) {
      const { error, internal, logged = thrown } = toStatus(thrown, negotiateLanguage(req.header.get('accept-language')), {}, req.contextValues.get(requestKey));
      if (internal) errors.error(logged, { rpc: req.method.name }, 'request failed on the server side');
      throw error;
    }
  };
}
