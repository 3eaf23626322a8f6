// Measures what the router costs in DynamoDB (docs/deploying.md, "Deploying to AWS"): a proxy between the router and a
// DynamoDB stand-in that asks the stand-in for each request's consumed capacity and adds it up. dynalite
// computes a write's units from the item's size (1 KB each, the larger of before and after) and a read's
// (4 KB each, half for eventually consistent reads), as DynamoDB does; it does not report index writes, so an
// item written with gsi1 keys is counted again for the index here.
//
//   node node_modules/dynalite/cli.js --port 8001 &
//   node scripts/count-table-capacity.mjs 8002 8001 &
//   FLEET_DYNAMODB_ENDPOINT=http://127.0.0.1:8002 FLEET_DEMO_TRAFFIC=false npm run demo
//   curl 127.0.0.1:8002/__reset; …load…; curl 127.0.0.1:8002/__stats

import { createServer, request } from 'node:http';

const [listenPort, tablePort] = process.argv.slice(2).map(Number);
if (!(listenPort > 0 && tablePort > 0)) throw new Error('usage: count-table-capacity.mjs <listen port> <table port>');

const WRITES = new Set(['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem']);
const READS = new Set(['GetItem', 'Query', 'BatchGetItem']);

const fresh = () => ({
  since: Date.now(),
  calls: {},
  itemsWritten: 0,
  itemsRead: 0,
  writeUnits: 0,
  indexWriteUnits: 0,
  readUnits: 0,
});
let totals = fresh();

/** Items a write request writes, and whether each carries gsi1 keys (an index write too). */
function writtenItems(operation, body) {
  if (operation === 'BatchWriteItem') {
    return Object.values(body.RequestItems ?? {}).flatMap((requests) =>
      requests.map((entry) => ({ indexed: entry.PutRequest?.Item?.gsi1pk !== undefined })),
    );
  }
  const indexed =
    operation === 'PutItem' ? body.Item?.gsi1pk !== undefined : /gsi1pk/.test(body.UpdateExpression ?? '');
  return [{ indexed }];
}

function count(operation, body, answer) {
  totals.calls[operation] = (totals.calls[operation] ?? 0) + 1;
  const consumed = [answer.ConsumedCapacity ?? []].flat();
  const units = consumed.reduce((sum, entry) => sum + (entry.Table?.CapacityUnits ?? entry.CapacityUnits ?? 0), 0);
  if (WRITES.has(operation)) {
    const items = writtenItems(operation, body);
    totals.itemsWritten += items.length;
    totals.writeUnits += units;
    // One index write per indexed item, at the item's units (these items are under 1 KB or counted as 1).
    totals.indexWriteUnits +=
      items.filter((item) => item.indexed).length * Math.max(1, units / Math.max(items.length, 1));
  } else if (READS.has(operation)) {
    totals.itemsRead += answer.Count ?? (answer.Item === undefined ? 0 : 1);
    totals.readUnits += units;
  }
}

createServer((incoming, outgoing) => {
  if (incoming.url === '/__stats')
    return outgoing.end(JSON.stringify({ ...totals, seconds: (Date.now() - totals.since) / 1000 }));
  if (incoming.url === '/__reset') {
    totals = fresh();
    return outgoing.end('{}');
  }
  const chunks = [];
  incoming.on('data', (chunk) => chunks.push(chunk));
  incoming.on('end', () => {
    const operation = String(incoming.headers['x-amz-target'] ?? '').split('.')[1] ?? '';
    let text = Buffer.concat(chunks).toString('utf8');
    let body = {};
    try {
      body = JSON.parse(text);
      if (WRITES.has(operation) || READS.has(operation))
        text = JSON.stringify({ ...body, ReturnConsumedCapacity: 'TOTAL' });
    } catch {
      // Not JSON: passed on as it came.
    }
    const headers = { ...incoming.headers, 'content-length': Buffer.byteLength(text) };
    const upstream = request(
      { host: '127.0.0.1', port: tablePort, method: incoming.method, path: incoming.url, headers },
      (answer) => {
        const parts = [];
        answer.on('data', (part) => parts.push(part));
        answer.on('end', () => {
          const reply = Buffer.concat(parts);
          try {
            if (answer.statusCode === 200) count(operation, body, JSON.parse(reply.toString('utf8')));
          } catch {
            // Not JSON: not counted.
          }
          outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
          outgoing.end(reply);
        });
      },
    );
    upstream.on('error', () => outgoing.destroy());
    upstream.end(text);
  });
}).listen(listenPort, '127.0.0.1');
