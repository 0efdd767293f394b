package permission

import "context"

// yoloModeApprove approves in yolo mode whatever no policy above denied or
// asked about (spec 04 §2.3, policy 15).
type yoloModeApprove struct{}

func (yoloModeApprove) Name() string { return "yolo-mode-approve" }

func (yoloModeApprove) Evaluate(_ context.Context, c *Call) (Verdict, error) {
	if c.Mode != ModeYolo {
		return Verdict{}, nil
	}
	return Verdict{Kind: Approve}, nil
}
