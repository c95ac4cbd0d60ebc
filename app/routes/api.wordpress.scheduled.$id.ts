import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/node';
import { getPublication } from '~/services/wordpress/publications.server';
import { cancelPublication, reschedulePublication } from '~/services/wordpress/schedules.server';
import { rescheduleSchema } from '~/utils/wordpress-schemas';
import { withApi } from '~/http/api-context.server';
import { readerTimeZone } from '~/http/time-zone.server';

// One publication: GET it, PUT { publishAt, timeZone? } moves a waiting one, DELETE cancels it.
export function loader({ request, params }: LoaderFunctionArgs) {
  return withApi(request, 'wordpress', async (ctx) => ctx.ok({ publication: await getPublication(ctx.user.id, params.id ?? '') }));
}

export function action({ request, params }: ActionFunctionArgs) {
  return withApi(
    request,
    'wordpress',
    async (ctx) => {
      if (request.method === 'DELETE') return ctx.ok({ publication: await cancelPublication(ctx.user.id, params.id ?? '') });
      const { publishAt } = await ctx.read(rescheduleSchema(ctx.t, await readerTimeZone(request, ctx.user)));
      return ctx.ok({ publication: await reschedulePublication(ctx.user.id, params.id ?? '', new Date(publishAt)) });
    },
    { methods: ['PUT', 'DELETE'], allow: 'GET, PUT, DELETE' },
  );
}
