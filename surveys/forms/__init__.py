"""Forms for researchers, one module per page they serve. Epsilon rules come from the site's
privacy policy. Every form is importable from here."""

from surveys.forms.accounts import AccountForm
from surveys.forms.breakdowns import BreakdownForm
from surveys.forms.designs import DesignForm
from surveys.forms.invitations import InvitationForm
from surveys.forms.questions import QuestionForm
from surveys.forms.regression import RegressionForm
from surveys.forms.sharing import ShareChangeForm, ShareForm
from surveys.forms.survey_files import SurveyFileForm
from surveys.forms.surveys import ConfirmDeleteForm, SurveyForm
from surveys.forms.tokens import ApiTokenForm
from surveys.forms.translations import TranslationForm

__all__ = [
    "AccountForm", "ApiTokenForm", "BreakdownForm", "ConfirmDeleteForm", "DesignForm",
    "InvitationForm",
    "QuestionForm", "RegressionForm", "ShareChangeForm", "ShareForm", "SurveyFileForm",
    "SurveyForm",
    "TranslationForm",
]
