import { Construct } from 'constructs';

/**
 * A part of the stack (the data, the edge, the operations, …): a construct that groups code, not
 * names. Its id does not enter its resources' logical IDs (SocialDataApiStack.allocateLogicalId), so
 * a resource keeps the logical ID it would have directly under the stack and moving it from one part
 * to another replaces nothing on AWS. The price: ids must be unique across all parts (a duplicate
 * fails the synthesis: "section 'Resources' already contains …").
 */
export abstract class StackPart extends Construct {}
