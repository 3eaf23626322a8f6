/**
 * The UpdateItem behind `Table.updateFields` (issue 45): set an item's `doc` and some string attributes
 * beside it, and remove others, leaving every attribute it does not name as it was. A node's record is
 * written this way so that an ejection another instance set on the same item survives the node's
 * heartbeats and polls (lib/services/store/published-ejections). Pure.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { marshalDoc, RESERVED_ATTRIBUTES } from './item';

export interface FieldsUpdate {
  /** The domain document, marshalled as a put marshals it. */
  readonly doc?: string;
  /** String attributes to set beside it (none of the convention's names). */
  readonly set?: Readonly<Record<string, string>>;
  /** Attributes to remove (none of the convention's names). */
  readonly remove?: readonly string[];
  /** Write only onto an item that exists; nothing is created. */
  readonly ifExists?: boolean;
}

export interface FieldsUpdateExpression {
  readonly UpdateExpression: string;
  readonly ExpressionAttributeNames: Record<string, string>;
  readonly ExpressionAttributeValues?: Record<string, AttributeValue>;
  readonly ConditionExpression?: string;
}

function checkName(name: string): void {
  if (RESERVED_ATTRIBUTES.has(name)) throw new Error(`"${name}" cannot be set or removed as a field`);
}

/** The expressions of one UpdateItem; undefined when the update names nothing. */
export function buildFieldsUpdate(update: FieldsUpdate): FieldsUpdateExpression | undefined {
  const names: Record<string, string> = {};
  const values: Record<string, AttributeValue> = {};
  const sets: string[] = [];
  if (update.doc !== undefined) {
    names['#doc'] = 'doc';
    values[':doc'] = marshalDoc(update.doc);
    sets.push('#doc = :doc');
  }
  Object.entries(update.set ?? {}).forEach(([name, value], index) => {
    checkName(name);
    names[`#s${index}`] = name;
    values[`:s${index}`] = { S: value };
    sets.push(`#s${index} = :s${index}`);
  });
  const removes = (update.remove ?? []).map((name, index) => {
    checkName(name);
    names[`#r${index}`] = name;
    return `#r${index}`;
  });
  const clauses = [
    sets.length > 0 ? `SET ${sets.join(', ')}` : '',
    removes.length > 0 ? `REMOVE ${removes.join(', ')}` : '',
  ];
  const expression = clauses.filter((clause) => clause !== '').join(' ');
  if (expression === '') return undefined;
  if (update.ifExists === true) names['#pk'] = 'pk';
  return {
    UpdateExpression: expression,
    ExpressionAttributeNames: names,
    ...(Object.keys(values).length > 0 ? { ExpressionAttributeValues: values } : {}),
    ...(update.ifExists === true ? { ConditionExpression: 'attribute_exists(#pk)' } : {}),
  };
}
