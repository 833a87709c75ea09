// Inputs of the session pin and lease methods (R7, issue 9 item 8).
import { z } from "zod";

export const sessionKeySchema = z.object({ key: z.string().min(1).max(200) });
export const leaseConnectionSchema = z.object({ connectionId: z.string().min(1).max(200) });
